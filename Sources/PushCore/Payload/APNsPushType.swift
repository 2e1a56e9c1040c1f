/// The `apns-push-type` header, which also decides `apns-priority`: Apple requires background pushes (only
/// `content-available`) to go at priority 5, and throttles them.
public enum APNsPushType: String, Sendable, Hashable {
    case alert
    case background

    /// The `apns-priority` header value.
    public var priority: Int {
        switch self {
        case .alert: return 10
        case .background: return 5
        }
    }
}
