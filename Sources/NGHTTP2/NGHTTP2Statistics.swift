import CNGHTTP2Loop

/// A snapshot of a client's counters, for benchmarks and metrics; the sum over its loops.
public struct NGHTTP2Statistics: Sendable, Hashable {
    /// Requests accepted by `send`.
    public var requests: Int
    /// Requests that ended with a response.
    public var responses: Int
    /// Requests that ended with an error (cancellation and refusal included).
    public var failures: Int
    /// Transparent re-runs: streams refused (REFUSED_STREAM, above a GOAWAY's last stream id) and requests
    /// whose connection failed or was lost before any response byte.
    public var retries: Int
    /// Connections that got as far as the server's SETTINGS.
    public var connectionsOpened: Int
    /// GOAWAY frames received.
    public var goaways: Int
    /// Requests on streams now.
    public var inFlight: Int
    /// Requests waiting for a stream now.
    public var queued: Int
    /// Host names resolved: one per connection attempt to a name (addresses need none).
    public var resolutions: Int
    /// Connections given up because a PING went unanswered.
    public var pingTimeouts: Int
    /// The most streams ever open at once on one connection.
    public var peakStreamsPerConnection: Int

    static let zero = NGHTTP2Statistics(
        requests: 0, responses: 0, failures: 0, retries: 0, connectionsOpened: 0, goaways: 0, inFlight: 0,
        queued: 0, resolutions: 0, pingTimeouts: 0, peakStreamsPerConnection: 0)

    init(
        requests: Int, responses: Int, failures: Int, retries: Int, connectionsOpened: Int, goaways: Int,
        inFlight: Int, queued: Int, resolutions: Int, pingTimeouts: Int, peakStreamsPerConnection: Int
    ) {
        self.requests = requests
        self.responses = responses
        self.failures = failures
        self.retries = retries
        self.connectionsOpened = connectionsOpened
        self.goaways = goaways
        self.inFlight = inFlight
        self.queued = queued
        self.resolutions = resolutions
        self.pingTimeouts = pingTimeouts
        self.peakStreamsPerConnection = peakStreamsPerConnection
    }

    init(_ s: pl_h2_statistics) {
        self.init(
            requests: Int(s.requests), responses: Int(s.responses), failures: Int(s.failures),
            retries: Int(s.retries), connectionsOpened: Int(s.connections_opened), goaways: Int(s.goaways),
            inFlight: Int(s.in_flight), queued: Int(s.queued), resolutions: Int(s.resolutions),
            pingTimeouts: Int(s.ping_timeouts), peakStreamsPerConnection: Int(s.peak_streams))
    }

    static func + (a: NGHTTP2Statistics, b: NGHTTP2Statistics) -> NGHTTP2Statistics {
        NGHTTP2Statistics(
            requests: a.requests + b.requests, responses: a.responses + b.responses,
            failures: a.failures + b.failures, retries: a.retries + b.retries,
            connectionsOpened: a.connectionsOpened + b.connectionsOpened, goaways: a.goaways + b.goaways,
            inFlight: a.inFlight + b.inFlight, queued: a.queued + b.queued,
            resolutions: a.resolutions + b.resolutions, pingTimeouts: a.pingTimeouts + b.pingTimeouts,
            peakStreamsPerConnection: max(a.peakStreamsPerConnection, b.peakStreamsPerConnection))
    }
}
