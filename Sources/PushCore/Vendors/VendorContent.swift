/// What a vendor's device gets (SPEC §12.3), read out for the vendor's request: the merged LeanCloud JSON the
/// client module reads (with `_nid`), the title and body the vendor shows, pass-through or not, the Android
/// notification channel, and the vendor-native options.
public struct VendorContent: Sendable, Hashable {
    /// The LeanCloud content with `_nid`.
    public let json: [String: JSON]
    /// `json` as text, as the LeanCloud module parses it.
    public let text: String
    public private(set) var title: String?
    public let body: String?
    /// LeanCloud's pass-through message: the app handles it, nothing is shown.
    public let silent: Bool
    /// `_notificationChannel`: the Android O notification channel, the vendor's channel id.
    public let notificationChannel: String?
    public let options: VendorOptions

    public init(_ content: [String: JSON], notificationId: String, options: VendorOptions) throws(PushDataError) {
        var json = content
        json["_nid"] = .string(notificationId)
        let shown = try AndroidNotificationText(content)
        self.json = json
        self.text = JSON.object(json).encoded()
        self.title = shown.title
        self.body = shown.body
        self.silent = shown.silent
        self.notificationChannel = content["_notificationChannel"]?.stringValue
        self.options = options
    }

    /// The custom keys: everything the device gets but LeanCloud's own keys.
    public var customKeys: [String: JSON] {
        json.filter {
            !["alert", "title", "silent", "sound", "badge", "_nid", "_notificationChannel"].contains($0.key)
        }
    }

    /// The content with `fallback` as its title when it has none: a vendor shows a notification's title
    /// (Xiaomi and OPPO refuse one without it), and LeanCloud's own default is the app's name
    /// (research/hybrid-push.md §4). The LeanCloud JSON is left as the push gave it.
    public func titled(_ fallback: String) -> VendorContent {
        guard title == nil || title == "" else { return self }
        var titled = self
        titled.title = fallback
        return titled
    }
}
