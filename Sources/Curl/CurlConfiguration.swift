import Foundation

/// How a `CurlClient` connects: TLS, connection bounds and defaults for requests.
public struct CurlConfiguration: Sendable {
    public var tls: CurlTLSConfiguration
    /// Connections to one host. HTTP/2 multiplexes, so a couple carry thousands of requests a second.
    public var maxHostConnections: Int
    /// Connections in all.
    public var maxTotalConnections: Int
    /// Our cap on streams per connection; the server's SETTINGS may lower it.
    public var maxConcurrentStreams: Int
    /// Transfers handed to libcurl at once; the rest wait in the client's queue. libcurl 7.88 walks every
    /// added transfer on each wake-up, so an unbounded number would cost CPU without adding throughput.
    public var maxInFlight: Int
    public var connectTimeout: Duration
    /// Timeout for requests that carry none.
    public var defaultTimeout: Duration
    /// Transparent re-runs of a request that failed on its connection before any response byte arrived.
    public var connectionRetries: Int
    public var userAgent: String?
    /// libcurl's verbose trace to stderr, for debugging.
    public var verbose: Bool
    /// Threads driving libcurl, each with its own multi handle and an equal share of the connections and
    /// of `maxInFlight` (at least one of each, so a bound smaller than the thread count is exceeded). A
    /// multi handle is single-threaded, so the threads are what lets libcurl use more than one core
    /// (scripts/bench-fanout measures its rate with one thread and with two).
    public var driverThreads: Int
    /// How long each driver lets answers gather before a round while many transfers are in flight.
    public var roundPause: CurlRoundPause
    /// The URL schemes transfers may use (libcurl's `CURLOPT_PROTOCOLS_STR`). Providers are reached over TLS
    /// only; the reference device client also speaks to a plain-HTTP `serve`. Redirects are never followed.
    public var protocols: String = "https"

    /// One per core: a driver is one thread's worth of libcurl, and on the two-core benchmark machine a fan-out
    /// with one driver was slower than with two (docs/decisions.md, "Transfers, senders, drivers"). A provider's
    /// connections are shared out among them, at least one each, so on a machine with more cores than a
    /// provider's `connections` each driver has one.
    public static let defaultDriverThreads = max(1, ProcessInfo.processInfo.activeProcessorCount)

    public init(
        tls: CurlTLSConfiguration = CurlTLSConfiguration(),
        maxHostConnections: Int = 2,
        maxTotalConnections: Int = 4,
        maxConcurrentStreams: Int = 1000,
        maxInFlight: Int = 2000,
        connectTimeout: Duration = .seconds(10),
        defaultTimeout: Duration = .seconds(30),
        connectionRetries: Int = 3,
        userAgent: String? = "PushLedger",
        verbose: Bool = false,
        driverThreads: Int = CurlConfiguration.defaultDriverThreads,
        roundPause: CurlRoundPause = .standard
    ) {
        self.tls = tls
        self.maxHostConnections = maxHostConnections
        self.maxTotalConnections = maxTotalConnections
        self.maxConcurrentStreams = maxConcurrentStreams
        self.maxInFlight = maxInFlight
        self.connectTimeout = connectTimeout
        self.defaultTimeout = defaultTimeout
        self.connectionRetries = connectionRetries
        self.userAgent = userAgent
        self.verbose = verbose
        self.driverThreads = driverThreads
        self.roundPause = roundPause
    }

    /// What each of `drivers` drivers gets: its share of the connections and of the in-flight bound, at
    /// least one of each.
    func share(of drivers: Int) -> CurlConfiguration {
        var share = self
        func part(_ n: Int) -> Int { max(1, (n + drivers - 1) / drivers) }
        share.maxHostConnections = part(maxHostConnections)
        share.maxTotalConnections = part(maxTotalConnections)
        share.maxInFlight = part(maxInFlight)
        return share
    }
}
