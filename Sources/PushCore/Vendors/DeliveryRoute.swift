/// Where one target goes (SPEC §5, §12.3), decided from its device type, `vendor` and token alone.
public enum DeliveryRoute: Sendable, Hashable {
    case apns
    case wns
    /// FCM; `leanCloudShape` for `vendor: fcm`, whose LeanCloud module reads `notification` + `data.payload`.
    case fcm(leanCloudShape: Bool)
    /// One of the vendors' own APIs.
    case vendor(AndroidVendor)
    /// The own device channel.
    case channel(PushPlatform)
    /// A `vendor` value outside SPEC §12.3's list, stored before validation refused it: counted as an error.
    case unknownVendor(String)

    public init(deviceType: String, vendor: String?, token: String) {
        switch PushPlatform(rawValue: deviceType) {
        case .ios?:
            self = .apns
        case .windows?:
            self = token.isEmpty ? .channel(.windows) : .wns
        case .android?, nil:
            guard let vendor, !vendor.isEmpty else {
                self = token.isEmpty ? .channel(.android) : .fcm(leanCloudShape: false)
                return
            }
            switch AndroidVendor(rawValue: vendor) {
            case nil: self = .unknownVendor(vendor)
            case .lc?: self = .channel(.android)
            case .fcm?: self = token.isEmpty ? .channel(.android) : .fcm(leanCloudShape: true)
            case let known?: self = token.isEmpty ? .channel(.android) : .vendor(known)
            }
        }
    }

    public init(_ target: PushTarget) {
        self.init(deviceType: target.deviceType, vendor: target.vendor, token: target.token)
    }

    public var isUnknownVendor: Bool {
        if case .unknownVendor = self { return true }
        return false
    }

    /// The record counter of a success on this route, nil for iOS and Windows (counted per platform only).
    public var vendorCounter: String? {
        switch self {
        case .fcm: AndroidVendor.fcm.counter
        case .vendor(let vendor): vendor.counter
        case .channel(.android): AndroidVendor.lc.counter
        case .apns, .wns, .channel, .unknownVendor: nil
        }
    }

    /// How `explain` names the service (`delivered through HMS`).
    public var serviceName: String {
        switch self {
        case .apns: "APNs"
        case .wns: "WNS"
        case .fcm: "FCM"
        case .vendor(let vendor): vendor.rawValue
        case .channel: "the own channel"
        case .unknownVendor(let vendor): "the unknown vendor \(vendor)"
        }
    }
}
