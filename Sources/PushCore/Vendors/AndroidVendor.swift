/// The push service an Android installation is reached through, as the LeanCloud SDK names it in the
/// installation's `vendor` (SPEC §12.3); the vendor's token is the installation's `registrationId`.
public enum AndroidVendor: String, Sendable, Hashable, CaseIterable {
    case hms = "HMS"
    case mi
    /// Xiaomi's global service: the same settings as `mi`, its `global_endpoint`.
    case miIntl = "mi-intl"
    case oppo
    case vivo
    case mz
    case honor
    case fcm
    /// Back to the own channel (the SDK keeps the `registrationId` it had).
    case lc

    /// The prefix of the vendor's settings (`hms.app_id`) and its key in a push's `data`; nil for the own channel.
    public var key: String? {
        switch self {
        case .hms: "hms"
        case .mi, .miIntl: "mi"
        case .oppo: "oppo"
        case .vivo: "vivo"
        case .mz: "mz"
        case .honor: "honor"
        case .fcm: "fcm"
        case .lc: nil
        }
    }

    /// The push record's counter of this vendor's successes (`hmsSuccesses`…): `mi-intl` counts as `mi`.
    public var counter: String { (key ?? "lc") + "Successes" }

    /// The content keys of vendors in a push's `data` (`hms`, `mi`, …, `fcm`).
    public static let contentKeys: Set<String> = Set(allCases.compactMap(\.key))

    /// Every record counter, in a stable order.
    public static let counters: [String] = ["hms", "mi", "oppo", "vivo", "mz", "honor", "fcm", "lc"].map {
        $0 + "Successes"
    }

    /// The vendors served through their own API (not FCM's, not the own channel).
    public var isVendorAPI: Bool { self != .fcm && self != .lc }
}
