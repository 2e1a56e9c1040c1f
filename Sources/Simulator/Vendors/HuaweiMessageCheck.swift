import PushCore

/// The checks HMS makes on a message and Honor on its body, which differ only in where the tokens are and how the
/// click action is spelled: tokens, data, size, TTL and the notification's click action.
struct HuaweiMessageCheck {
    /// `click_action` at HMS, `clickAction` at Honor.
    var clickActionKey: String
    /// `target_user_type` at HMS, `targetUserType` at Honor.
    var targetUserTypeKey: String

    static let hms = HuaweiMessageCheck(clickActionKey: "click_action", targetUserTypeKey: "target_user_type")
    static let honor = HuaweiMessageCheck(clickActionKey: "clickAction", targetUserTypeKey: "targetUserType")

    static let maxTokens = 1000
    /// Both count the message without its tokens.
    static let maxMessageBytes = 4096

    /// The HMS code (also Honor's, as a number) and message for what is wrong with `message`, nil when nothing is.
    func problem(in message: JSON) -> (code: String, message: String)? {
        guard var fields = message.objectValue else {
            return (HMSRoute.badParameters, "message must be an object")
        }
        guard let tokens = fields["token"]?.arrayValue, (1...Self.maxTokens).contains(tokens.count) else {
            return (HMSRoute.tokenCount, "token must be an array of 1 to \(Self.maxTokens) tokens")
        }
        guard tokens.allSatisfy({ !($0.stringValue ?? "").isEmpty }) else {
            return (HMSRoute.badParameters, "every token must be a non-empty string")
        }
        if let data = fields["data"], data.stringValue == nil {
            return (HMSRoute.badParameters, "data must be a string")
        }
        fields["token"] = nil
        // PushCore's compact encoding, the one the server measures with before it sends.
        if JSON.object(fields).encodedBytes().count > Self.maxMessageBytes {
            return (HMSRoute.messageTooLarge, "message body size exceeds \(Self.maxMessageBytes) bytes")
        }
        guard let android = fields["android"] else { return nil }
        guard android.isObject else { return (HMSRoute.badParameters, "android must be an object") }
        if let ttl = android["ttl"], !Self.isDuration(ttl) {
            return (HMSRoute.badParameters, "android.ttl must be a duration such as \"86400s\"")
        }
        if let type = android[self.targetUserTypeKey], type.integerValue.map({ (0...1).contains($0) }) != true {
            return (HMSRoute.badParameters, "android.\(self.targetUserTypeKey) must be 0 or 1")
        }
        guard let notification = android["notification"] else { return nil }
        return self.clickActionProblem(notification).map { (HMSRoute.badMessage, $0) }
    }

    /// A notification must say what a tap does: type 1 an intent or action, 2 a URL, 3 open the app, 4 rich media.
    private func clickActionProblem(_ notification: JSON) -> String? {
        let key = "android.notification.\(self.clickActionKey)"
        guard notification.isObject, let action = notification[self.clickActionKey], action.isObject else {
            return "\(key) is required"
        }
        guard let type = action["type"]?.integerValue, (1...4).contains(type) else {
            return "\(key).type must be 1 to 4"
        }
        if type == 1, (action["intent"]?.stringValue ?? action["action"]?.stringValue ?? "").isEmpty {
            return "\(key) of type 1 needs an intent or an action"
        }
        if type == 2, (action["url"]?.stringValue ?? "").isEmpty {
            return "\(key) of type 2 needs a url"
        }
        return nil
    }

    /// `"<seconds>s"`, seconds possibly with a fraction.
    private static func isDuration(_ value: JSON) -> Bool {
        guard let text = value.stringValue, text.hasSuffix("s") else { return false }
        let number = text.dropLast()
        return !number.isEmpty && number.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
            && number.filter { $0 == "." }.count <= 1
    }
}
