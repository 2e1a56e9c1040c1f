import Delivery
import DeviceChannel

/// How `serve` runs.
public struct ServerConfiguration: Sendable {
    public var databaseURL: String
    public var host: String
    public var port: Int
    public var maxConnections: Int
    /// Concurrent batch senders of the fan-out in this process.
    public var senders: Int = 4
    /// The HTTP/2 library APNs and FCM notifications go through.
    public var transport: TransportLibrary = .standard
    /// How long a leased batch stays with its sender before another process may take it over.
    public var batchLease: Duration = .seconds(30)
    /// How often the retention job runs inside `serve`; nil turns it off in this process.
    public var retentionInterval: Duration? = .seconds(3600)
    /// Days of event log the retention job keeps (whole UTC days are dropped); nil keeps the whole log.
    public var logRetentionDays: Int?
    /// When set, `GET /metrics` requires `Authorization: Bearer <token>`.
    public var metricsToken: String?
    /// The own device channel at `/channel` (ping interval, window, expiry beat).
    public var channel = ChannelConfiguration()
    /// When set, the port speaks HTTPS (and WSS for the own device channel).
    public var tls: ServerTLS?
    /// Timeouts and caps of the port's connections (SPEC §12.8).
    public var connections = ConnectionLimits.Configuration()

    public init(databaseURL: String, host: String = "127.0.0.1", port: Int = 8080, maxConnections: Int = 16) {
        self.databaseURL = databaseURL
        self.host = host
        self.port = port
        self.maxConnections = maxConnections
    }
}
