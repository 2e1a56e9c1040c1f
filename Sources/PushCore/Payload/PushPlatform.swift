/// A platform PushLedger builds payloads for: `ios` goes to APNs, `android` to FCM. The raw values are the
/// per-platform keys of a push's `data` and the installations' `deviceType`.
public enum PushPlatform: String, Sendable, Hashable, CaseIterable {
    case ios
    case android

    /// Keys of `data` that hold one platform's content; `wp` (Windows Phone) is recognised but never delivered.
    public static let contentKeys: Set<String> = ["ios", "android", "wp"]
}
