/// What an Android notification shows, read from LeanCloud's Android keys the same way for FCM and for every
/// vendor: the body from `alert` (a string, or an iOS-style alert dictionary's `body`, so shared data still shows
/// something sensible), the title from `title` or that dictionary's, and `silent` (LeanCloud's pass-through).
struct AndroidNotificationText {
    let title: String?
    let body: String?
    let silent: Bool

    init(_ content: [String: JSON]) throws(PushDataError) {
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
        // `action` is not checked: shared data may use it as an iOS custom key (the seed's `{"action":{"type":4}}`),
        // and on Android it simply travels as JSON.
        if let value = content["title"], !value.isNull, value.stringValue == nil {
            throw .invalid("title must be a string, not \(value.typeName)")
        }
        self.title = content["title"]?.stringValue ?? alertTitle
        self.body = body
        self.silent = silent
    }
}
