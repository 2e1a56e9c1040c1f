/// Where a vendor look-alike's access tokens are good: each vendor keeps its own, so a token of one is no good at
/// another, and OPPO's China and global hosts each keep theirs, as two deployments of the service would.
enum VendorTokenRealm: Hashable, CaseIterable {
    case hms
    case honor
    case oppo
    case oppoGlobal
    case vivo

    /// What the vendors document: HMS and Honor tokens live an hour, OPPO and vivo tokens a day.
    var defaultLifetimeSeconds: Int {
        switch self {
        case .hms, .honor: return 3600
        case .oppo, .oppoGlobal, .vivo: return 86_400
        }
    }

    /// Makes a token's origin plain in recordings and logs.
    var tokenPrefix: String {
        switch self {
        case .hms: return "sim-hms-"
        case .honor: return "sim-honor-"
        case .oppo: return "sim-oppo-"
        case .oppoGlobal: return "sim-oppo-global-"
        case .vivo: return "sim-vivo-"
        }
    }
}
