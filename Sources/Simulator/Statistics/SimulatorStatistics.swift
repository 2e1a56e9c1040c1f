/// A snapshot of what the simulator has answered since start or the last reset (`GET /_sim/stats`).
public struct SimulatorStatistics: Sendable, Hashable {
    public var apns: ProviderStatistics
    public var fcm: ProviderStatistics
    /// The OAuth token endpoint; `accepted` is the number of access tokens issued.
    public var oauth: ProviderStatistics
    /// The WNS look-alike: notifications to `/wns/<channel id>`.
    public var wns: ProviderStatistics
    /// The WNS token endpoint; `accepted` is the number of access tokens issued.
    public var wnsOAuth: ProviderStatistics
    /// TCP connections accepted, whatever protocol they went on to speak.
    public var connections: Int
    /// GOAWAY frames sent because of ``SimulatorConfiguration/goAwayAfterStreams``.
    public var goAways: Int
    /// Distinct APNs/FCM device tokens, WNS channel ids and vendor registration ids seen while recording was on (0
    /// when it is off).
    public var distinctTokens: Int
    /// The Android vendor look-alikes, keyed by vendor (``SimulatedProvider/androidVendors``).
    public var vendors: [SimulatedProvider: VendorStatistics]
    /// Their token endpoints (``SimulatedProvider/vendorsWithTokenExchange``); `accepted` is the tokens issued.
    public var vendorAuth: [SimulatedProvider: ProviderStatistics]

    public init(
        apns: ProviderStatistics = ProviderStatistics(),
        fcm: ProviderStatistics = ProviderStatistics(),
        oauth: ProviderStatistics = ProviderStatistics(),
        wns: ProviderStatistics = ProviderStatistics(),
        wnsOAuth: ProviderStatistics = ProviderStatistics(),
        connections: Int = 0,
        goAways: Int = 0,
        distinctTokens: Int = 0,
        vendors: [SimulatedProvider: VendorStatistics] = [:],
        vendorAuth: [SimulatedProvider: ProviderStatistics] = [:]
    ) {
        self.apns = apns
        self.fcm = fcm
        self.oauth = oauth
        self.wns = wns
        self.wnsOAuth = wnsOAuth
        self.connections = connections
        self.goAways = goAways
        self.distinctTokens = distinctTokens
        self.vendors = vendors
        self.vendorAuth = vendorAuth
    }
}
