import Curl
import NGHTTP2

/// A provider client's HTTP counters, whichever library carries its requests (benchmarks and tests read them).
public struct TransportStatistics: Sendable, Hashable {
    /// Requests accepted.
    public var requests: Int
    /// Requests that ended with a response.
    public var responses: Int
    /// Requests that ended with an error (cancellation included).
    public var failures: Int
    /// Transparent connection-level re-runs.
    public var retries: Int
    /// Connections opened.
    public var connectionsOpened: Int
    /// Requests in flight now.
    public var inFlight: Int

    public init(requests: Int, responses: Int, failures: Int, retries: Int, connectionsOpened: Int, inFlight: Int) {
        self.requests = requests
        self.responses = responses
        self.failures = failures
        self.retries = retries
        self.connectionsOpened = connectionsOpened
        self.inFlight = inFlight
    }

    public init(_ curl: CurlStatistics) {
        self.init(
            requests: curl.requests, responses: curl.responses, failures: curl.failures, retries: curl.retries,
            connectionsOpened: curl.connectionsOpened, inFlight: curl.inFlight)
    }

    public init(_ nghttp2: NGHTTP2Statistics) {
        self.init(
            requests: nghttp2.requests, responses: nghttp2.responses, failures: nghttp2.failures,
            retries: nghttp2.retries, connectionsOpened: nghttp2.connectionsOpened, inFlight: nghttp2.inFlight)
    }

    public static let zero = TransportStatistics(
        requests: 0, responses: 0, failures: 0, retries: 0, connectionsOpened: 0, inFlight: 0)

    public static func + (a: TransportStatistics, b: TransportStatistics) -> TransportStatistics {
        TransportStatistics(
            requests: a.requests + b.requests, responses: a.responses + b.responses, failures: a.failures + b.failures,
            retries: a.retries + b.retries, connectionsOpened: a.connectionsOpened + b.connectionsOpened,
            inFlight: a.inFlight + b.inFlight)
    }
}
