import Logging
import Metrics
import Synchronization

/// The bounds every connection of `serve`'s port is held to (SPEC §12.8), and the counts shared by all of
/// them. HTTP requests must arrive whole within `requestTimeout` of their first byte (a TLS handshake counts
/// as one), a connection may sit between requests for `idleTimeout`, and at most `maxConnections` HTTP
/// connections are open at once. Device-channel WebSockets leave the HTTP bounds when they are upgraded:
/// they follow the channel's ping policy and their own cap, because the LeanCloud SDK does not reconnect
/// after a clean close, so an idle device must not be closed for being idle.
public final class ConnectionLimits: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var requestTimeout: Duration
        public var idleTimeout: Duration
        public var maxConnections: Int
        public var maxChannelConnections: Int
        /// Caps the operator did not set, which may be lowered to fit the open-file limit.
        public var httpCapIsDefault: Bool
        public var channelCapIsDefault: Bool

        /// nginx gives a request head 60 s and a keep-alive connection 75 s, Node.js a whole request 300 s and
        /// an idle connection 5 s. Pushes and saves are small: 30 s is long for a slow mobile link, and 60 s
        /// between requests keeps an SDK's connection warm without holding descriptors for nothing.
        public static let defaultRequestTimeoutSeconds = 30
        public static let defaultIdleTimeoutSeconds = 60
        public static let defaultMaxConnections = 4096
        public static let defaultMaxChannelConnections = 100_000

        public init(
            requestTimeout: Duration = .seconds(defaultRequestTimeoutSeconds),
            idleTimeout: Duration = .seconds(defaultIdleTimeoutSeconds),
            maxConnections: Int = defaultMaxConnections,
            maxChannelConnections: Int = defaultMaxChannelConnections,
            httpCapIsDefault: Bool = false, channelCapIsDefault: Bool = false
        ) {
            self.requestTimeout = requestTimeout
            self.idleTimeout = idleTimeout
            self.maxConnections = maxConnections
            self.maxChannelConnections = maxChannelConnections
            self.httpCapIsDefault = httpCapIsDefault
            self.channelCapIsDefault = channelCapIsDefault
        }
    }

    public let configuration: Configuration
    let report: ConnectionReport
    private let open = Atomic<Int>(0)
    private let channels = Atomic<Int>(0)

    public init(_ configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.report = ConnectionReport(logger: logger)
    }

    /// HTTP connections open now (not counting upgraded channel connections).
    public var openConnections: Int { open.load(ordering: .relaxed) }
    public var openChannelConnections: Int { channels.load(ordering: .relaxed) }

    /// Takes a place for a new connection; false (nothing taken) when the cap is reached.
    func admitConnection() -> Bool {
        Self.take(open, cap: configuration.maxConnections, gauge: Self.httpGauge)
    }

    func releaseConnection() { Self.release(open, gauge: Self.httpGauge) }

    /// Moves a connection from the HTTP count to the channel count; false (nothing moved) when the channel cap
    /// is reached.
    func admitChannel() -> Bool {
        guard Self.take(channels, cap: configuration.maxChannelConnections, gauge: Self.channelGauge) else {
            return false
        }
        releaseConnection()
        return true
    }

    func releaseChannel() { Self.release(channels, gauge: Self.channelGauge) }

    private static func take(_ count: borrowing Atomic<Int>, cap: Int, gauge: Gauge) -> Bool {
        let after = count.wrappingAdd(1, ordering: .relaxed).newValue
        guard after <= cap else {
            count.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        gauge.record(after)
        return true
    }

    private static func release(_ count: borrowing Atomic<Int>, gauge: Gauge) {
        gauge.record(count.wrappingSubtract(1, ordering: .relaxed).newValue)
    }

    static let httpGauge = Gauge(label: "pushledger_http_connections", dimensions: [("kind", "http")])
    static let channelGauge = Gauge(label: "pushledger_http_connections", dimensions: [("kind", "channel")])
}
