import PushCore

/// One app's WNS credentials (its package SID and secret) and where to use them.
public struct WNSConfiguration: Sendable {
    /// Microsoft's token endpoint for WNS.
    public static let productionTokenEndpoint = "https://login.live.com/accesstoken.srf"

    public var tokenEndpoint: String
    /// The package SID (`ms-app://S-1-15-2-…`), the OAuth `client_id`.
    public var packageSid: String
    /// The client secret, the OAuth `client_secret`.
    public var secret: String
    /// Trusted CAs (a simulator's, in tests and demos); `nil` uses the system store.
    public var caFile: String?
    public var requestTimeout: Duration
    /// Connections per channel host. WNS spreads channels over many `*.notify.windows.com` hosts.
    public var connectionsPerHost: Int
    public var totalConnections: Int
    /// Requests handed to libcurl at once.
    public var maxInFlight: Int
    /// The hosts channel URIs may point at; a notification to any other is never sent (`ForbiddenEndpoint`).
    public var hosts: WNSHosts

    public init(
        tokenEndpoint: String = WNSConfiguration.productionTokenEndpoint,
        packageSid: String,
        secret: String,
        caFile: String? = nil,
        requestTimeout: Duration = .seconds(10),
        connectionsPerHost: Int = 4,
        totalConnections: Int = 32,
        maxInFlight: Int = 2000,
        hosts: WNSHosts = WNSHosts()
    ) {
        self.tokenEndpoint = tokenEndpoint
        self.packageSid = packageSid
        self.secret = secret
        self.caFile = caFile
        self.requestTimeout = requestTimeout
        self.connectionsPerHost = connectionsPerHost
        self.totalConnections = totalConnections
        self.maxInFlight = maxInFlight
        self.hosts = hosts
    }
}
