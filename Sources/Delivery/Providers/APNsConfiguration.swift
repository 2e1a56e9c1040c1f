/// One APNs credential and where to use it.
public struct APNsConfiguration: Sendable {
    public static let production = "https://api.push.apple.com"
    public static let development = "https://api.sandbox.push.apple.com"

    /// Base URL, e.g. `APNsConfiguration.production` or a simulator's; the caller picks by the app's `prod`.
    public var endpoint: String
    public var authentication: APNsAuthentication
    /// The app's bundle id, sent as `apns-topic` unless a notification overrides it.
    public var topic: String
    /// Trusted CAs (a simulator's, in tests and demos); `nil` uses the system store.
    public var caFile: String?
    public var requestTimeout: Duration
    /// Provider token age at which a new one is signed (Apple: 20–60 minutes).
    public var tokenRefreshAge: Duration
    /// HTTP/2 connections to APNs; each carries up to the server's stream limit (1000 at Apple).
    public var connections: Int
    /// Requests handed to the HTTP/2 library at once.
    public var maxInFlight: Int
    /// The HTTP/2 library the notifications go through.
    public var transport: TransportLibrary

    public init(
        endpoint: String,
        authentication: APNsAuthentication,
        topic: String,
        caFile: String? = nil,
        requestTimeout: Duration = .seconds(10),
        tokenRefreshAge: Duration = .seconds(50 * 60),
        connections: Int = 2,
        maxInFlight: Int = 2000,
        transport: TransportLibrary = .standard
    ) {
        self.endpoint = endpoint
        self.authentication = authentication
        self.topic = topic
        self.caFile = caFile
        self.requestTimeout = requestTimeout
        self.tokenRefreshAge = tokenRefreshAge
        self.connections = connections
        self.maxInFlight = maxInFlight
        self.transport = transport
    }
}
