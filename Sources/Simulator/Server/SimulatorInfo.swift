import PushCore

/// Where a running simulator listens and what to tell the PushLedger app settings, for the `simulate` command's
/// banner and its machine-readable "ready" line.
public struct SimulatorInfo: Sendable, Hashable, Codable {
    public var host: String
    public var port: Int
    /// The CA certificate clients must trust (`--cacert`, `apns.ca_file`, `fcm.ca_file`, `wns.ca_file`).
    public var caFile: String
    /// `https://host:port`; APNs requests go to `<apnsEndpoint>/3/device/<token>`.
    public var apnsEndpoint: String
    /// FCM sends go to `<fcmEndpoint>/v1/projects/<project>/messages:send`.
    public var fcmEndpoint: String
    /// The OAuth token URL, also the `aud` service-account assertions must carry.
    public var fcmTokenEndpoint: String
    /// The WNS token endpoint (`wns.token_endpoint`).
    public var wnsTokenEndpoint: String
    /// Channel URIs of the WNS look-alike are `<wnsChannelBase><channel id>`.
    public var wnsChannelBase: String
    /// Base of the `/_sim/*` control endpoints.
    public var controlEndpoint: String
    /// `host:port` of the channel URIs, the one entry `wns.allowed_hosts` needs.
    public var wnsChannelHost: String
    /// `https://host:port`, which the Android vendor look-alikes' base URLs extend (`<baseURL>/hms`, …).
    public var baseURL: String

    public init(host: String, port: Int, caFile: String) {
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        self.host = host
        self.port = port
        self.caFile = caFile
        self.apnsEndpoint = "https://\(authority)"
        self.fcmEndpoint = "https://\(authority)"
        self.fcmTokenEndpoint = "https://\(authority)/token"
        self.wnsTokenEndpoint = "https://\(authority)/accesstoken.srf"
        self.wnsChannelBase = "https://\(authority)/wns/"
        self.controlEndpoint = "https://\(authority)/_sim"
        self.wnsChannelHost = authority
        self.baseURL = "https://\(authority)"
    }

    /// The `pushledger app set` keys that point an app at this simulator, the vendor look-alikes' credentials included.
    public var appSettings: [String: String] {
        let providers = [
            "apns.endpoint": self.apnsEndpoint,
            "apns.dev_endpoint": self.apnsEndpoint,
            "apns.ca_file": self.caFile,
            "fcm.endpoint": self.fcmEndpoint,
            "fcm.token_endpoint": self.fcmTokenEndpoint,
            "fcm.ca_file": self.caFile,
            "wns.token_endpoint": self.wnsTokenEndpoint,
            "wns.ca_file": self.caFile,
            // Channel URIs are checked against Microsoft's hosts and this list (SPEC §12.7): exactly our port.
            "wns.allowed_hosts": self.wnsChannelHost,
        ]
        return providers.merging(self.vendorSettings) { provider, _ in provider }
    }

    var json: JSON {
        .members([
            ("host", .string(self.host)),
            ("port", .integer(self.port)),
            ("caFile", .string(self.caFile)),
            ("apnsEndpoint", .string(self.apnsEndpoint)),
            ("fcmEndpoint", .string(self.fcmEndpoint)),
            ("fcmTokenEndpoint", .string(self.fcmTokenEndpoint)),
            ("wnsTokenEndpoint", .string(self.wnsTokenEndpoint)),
            ("wnsChannelBase", .string(self.wnsChannelBase)),
            ("controlEndpoint", .string(self.controlEndpoint)),
            ("baseURL", .string(self.baseURL)),
            ("appSettings", .members(self.appSettings.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
        ])
    }
}
