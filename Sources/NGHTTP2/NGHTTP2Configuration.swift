import Foundation

/// How an `NGHTTP2Client` connects: TLS, connection bounds, timers and defaults for requests.
public struct NGHTTP2Configuration: Sendable {
    public var tls: NGHTTP2TLSConfiguration
    /// Connections to one (host, port). HTTP/2 multiplexes, so a couple carry thousands of requests a second.
    public var maxHostConnections: Int
    /// Our cap on streams per connection; the server's SETTINGS_MAX_CONCURRENT_STREAMS may lower it.
    public var maxConcurrentStreams: Int
    /// Requests on streams at once; the rest wait in the client's queue.
    public var maxInFlight: Int
    /// For resolving and connecting, and again for the TLS handshake.
    public var connectTimeout: Duration
    /// Timeout for requests that carry none: from submission to the last body byte.
    public var defaultTimeout: Duration
    /// Transparent re-runs of a request whose connection failed or was lost before any response byte arrived.
    public var connectionRetries: Int
    /// A connection that received nothing for this long is sent a PING; `.zero` never pings.
    public var pingInterval: Duration
    /// A PING unanswered for this long makes the connection count as lost.
    public var pingTimeout: Duration
    /// After a server's GOAWAY, how long the streams it admitted may take before the connection is dropped.
    public var drainTimeout: Duration
    /// Sent as `user-agent` unless a request has its own.
    public var userAgent: String?
    /// Loop threads, each with its own connections and an equal share of `maxHostConnections` and
    /// `maxInFlight` (at least one of each). One loop is one core's worth of TLS and HTTP/2.
    public var loopThreads: Int

    /// One per core, as `CurlConfiguration.defaultDriverThreads`.
    public static let defaultLoopThreads = max(1, ProcessInfo.processInfo.activeProcessorCount)

    public init(
        tls: NGHTTP2TLSConfiguration = NGHTTP2TLSConfiguration(),
        maxHostConnections: Int = 2,
        maxConcurrentStreams: Int = 1000,
        maxInFlight: Int = 2000,
        connectTimeout: Duration = .seconds(10),
        defaultTimeout: Duration = .seconds(30),
        connectionRetries: Int = 3,
        pingInterval: Duration = .seconds(60),
        pingTimeout: Duration = .seconds(10),
        drainTimeout: Duration = .seconds(10),
        userAgent: String? = "PushLedger",
        loopThreads: Int = NGHTTP2Configuration.defaultLoopThreads
    ) {
        self.tls = tls
        self.maxHostConnections = maxHostConnections
        self.maxConcurrentStreams = maxConcurrentStreams
        self.maxInFlight = maxInFlight
        self.connectTimeout = connectTimeout
        self.defaultTimeout = defaultTimeout
        self.connectionRetries = connectionRetries
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
        self.drainTimeout = drainTimeout
        self.userAgent = userAgent
        self.loopThreads = loopThreads
    }

    /// What each of `loops` loops gets: its share of the connections and of the in-flight bound, at least one
    /// of each.
    func share(of loops: Int) -> NGHTTP2Configuration {
        var share = self
        func part(_ n: Int) -> Int { max(1, (n + loops - 1) / loops) }
        share.maxHostConnections = part(maxHostConnections)
        share.maxInFlight = part(maxInFlight)
        return share
    }
}
