/// The `apns-push-type` header, which also decides the default `apns-priority`: Apple requires background
/// pushes (only `content-available`) to go at priority 5, and throttles them. A push names a type other than
/// `alert` or `background` with its `apns-push-type` data key (LeanCloud's REST guide).
public enum APNsPushType: String, Sendable, Hashable, CaseIterable {
    case alert
    case background
    case location
    case voip
    case complication
    case fileprovider
    case mdm
    case liveactivity
    case pushtotalk
    case widgets
    case controls

    /// The `apns-priority` header value unless the push names one: 10 for what the user sees or a call, 5
    /// for what Apple delivers at its own pace.
    public var priority: Int {
        switch self {
        case .alert, .voip, .pushtotalk, .liveactivity: return 10
        case .background, .location, .complication, .fileprovider, .mdm, .widgets, .controls: return 5
        }
    }
}
