/// A snapshot of a client's counters, for benchmarks and metrics.
public struct CurlStatistics: Sendable, Hashable {
    /// Requests accepted by `send`.
    public var requests: Int
    /// Requests that ended with a response.
    public var responses: Int
    /// Requests that ended with an error (cancellation included).
    public var failures: Int
    /// Transparent connection-level re-runs.
    public var retries: Int
    /// New connections libcurl opened (sum of `CURLINFO_NUM_CONNECTS`).
    public var connectionsOpened: Int
    /// Requests whose whole response arrived but that libcurl left hanging (7.88, around GOAWAY); the
    /// driver finished them itself.
    public var stalledCompletions: Int
    /// Requests handed to libcurl and not finished.
    public var inFlight: Int
    /// Requests waiting for room under `maxInFlight`.
    public var queued: Int
    /// Rounds of `curl_multi_perform` the drivers ran.
    public var rounds: Int
    /// Rounds a driver paused before, to let answers gather (`CurlRoundPause`).
    public var pausedRounds: Int

    static let zero = CurlStatistics(
        requests: 0, responses: 0, failures: 0, retries: 0, connectionsOpened: 0, stalledCompletions: 0,
        inFlight: 0, queued: 0, rounds: 0, pausedRounds: 0)

    static func + (a: CurlStatistics, b: CurlStatistics) -> CurlStatistics {
        CurlStatistics(
            requests: a.requests + b.requests, responses: a.responses + b.responses, failures: a.failures + b.failures,
            retries: a.retries + b.retries, connectionsOpened: a.connectionsOpened + b.connectionsOpened,
            stalledCompletions: a.stalledCompletions + b.stalledCompletions, inFlight: a.inFlight + b.inFlight,
            queued: a.queued + b.queued, rounds: a.rounds + b.rounds, pausedRounds: a.pausedRounds + b.pausedRounds)
    }
}
