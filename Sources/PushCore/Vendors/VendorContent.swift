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
        var silent = false
        if let value = content["silent"], !value.isNull {
            guard let flag = value.boolValue else { throw .invalid("silent must be a boolean, not \(value.typeName)") }
            silent = flag
        }
        var body: String?
        var alertTitle: String?
        switch content["alert"] {
        case nil, .null?: break
        case .string(let text)?: body = text
        case .object(let fields)?:
            body = fields["body"]?.stringValue
            alertTitle = fields["title"]?.stringValue
        case let other?: throw .invalid("alert must be a string or an object, not \(other.typeName)")
        }
        if let value = content["title"], !value.isNull, value.stringValue == nil {
            throw .invalid("title must be a string, not \(value.typeName)")
        }
        self.json = json
        self.text = JSON.object(json).encoded()
        self.title = content["title"]?.stringValue ?? alertTitle
        self.body = body
        self.silent = silent
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
