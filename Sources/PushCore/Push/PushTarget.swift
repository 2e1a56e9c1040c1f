/// One device a push goes to, as recorded in `PushTargeted` events and batch rows.
public struct PushTarget: Sendable, Hashable, Codable {
    public var objectId: String
    public var deviceType: String
    /// APNs device token or FCM registration id; empty when the device has no delivery channel.
    public var token: String
    public var profile: String?
    /// The badge to send when the push increments badges.
    public var badge: Int64?
    /// The Android installation's `vendor` (SPEC §12.3), as stored; nil or empty when it has none.
    public var vendor: String?
    /// The iOS installation's `apnsTeamId` and `apnsTopic` (SPEC §12.6): which team's key signs for it, and
    /// its `apns-topic` when the push names none.
    public var apnsTeam: String?
    public var apnsTopic: String?

    public init(
        objectId: String, deviceType: String, token: String, profile: String?, badge: Int64?, vendor: String? = nil,
        apnsTeam: String? = nil, apnsTopic: String? = nil
    ) {
        self.objectId = objectId
        self.deviceType = deviceType
        self.token = token
        self.profile = profile
        self.badge = badge
        self.vendor = vendor
        self.apnsTeam = apnsTeam
        self.apnsTopic = apnsTopic
    }

    /// Short keys: a push to a million devices writes a million of these.
    enum CodingKeys: String, CodingKey {
        case objectId = "o", deviceType = "t", token = "k", profile = "p", badge = "b", vendor = "v"
        case apnsTeam = "i", apnsTopic = "c"
    }

    /// A target without a vendor, team or topic is written as before they existed, so stored pages read the
    /// same.
    public var json: JSON {
        var o: [String: JSON] = ["o": .string(objectId), "t": .string(deviceType), "k": .string(token)]
        if let profile, !profile.isEmpty { o["p"] = .string(profile) }
        if let badge { o["b"] = .int(badge) }
        if let vendor, !vendor.isEmpty { o["v"] = .string(vendor) }
        if let apnsTeam, !apnsTeam.isEmpty { o["i"] = .string(apnsTeam) }
        if let apnsTopic, !apnsTopic.isEmpty { o["c"] = .string(apnsTopic) }
        return .object(o)
    }

    public init?(json: JSON) {
        guard let o = json["o"]?.stringValue, let t = json["t"]?.stringValue, let k = json["k"]?.stringValue else {
            return nil
        }
        self.init(
            objectId: o, deviceType: t, token: k, profile: json["p"]?.stringValue, badge: json["b"]?.intValue,
            vendor: json["v"]?.stringValue, apnsTeam: json["i"]?.stringValue, apnsTopic: json["c"]?.stringValue)
    }
}
