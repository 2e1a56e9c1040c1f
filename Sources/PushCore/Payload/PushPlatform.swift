/// A platform PushLedger builds payloads for: `ios` goes to APNs, `android` to FCM, `windows` to WNS. The raw
/// values are the installations' `deviceType`; `contentKey` is the platform's key in a push's `data`.
public enum PushPlatform: String, Sendable, Hashable, CaseIterable {
    case ios
    case android
    case windows

    /// The key of `data` that holds this platform's content: Windows keeps LeanCloud's `wp` (Windows Phone).
    public var contentKey: String { self == .windows ? "wp" : rawValue }

    /// Keys of `data` that hold one platform's content.
    public static let contentKeys: Set<String> = Set(allCases.map(\.contentKey))

    /// The platform of a `deviceType` as clients send it: `wp`, the Windows Phone spelling of the LeanCloud
    /// SDKs, is Windows.
    public init?(deviceType: String) {
        self.init(rawValue: deviceType == "wp" ? PushPlatform.windows.rawValue : deviceType)
    }
}
