/// The `message` object of one FCM HTTP v1 `messages:send` request, built from a push's Android content.
///
/// Every LeanCloud Android key (`alert`, `title`, `action`, `silent`, custom keys) goes into `data`, whose values
/// FCM requires to be strings, so other JSON values are sent as their JSON text; `_nid` joins them. Unless the
/// push is `silent` (LeanCloud's pass-through message), `notification` shows `title` and `alert` as its body —
/// and only when there is one of them, since LeanCloud shows nothing for an `action`-only push.
public struct FCMMessage: Sendable, Hashable {
    /// FCM's limit on the message payload (data and notification).
    public static let maxPayloadBytes = 4096
    /// FCM refuses a time to live over four weeks.
    public static let maxTimeToLiveSeconds: Int64 = 2_419_200

    /// `{"token": …, "data": {…}, "notification": {…}, "android": {"ttl": "…s"}}`.
    public let message: JSON

    /// The request body for `POST …/messages:send`.
    public var requestBody: JSON { ["message": message] }

    /// Data keys FCM rejects (v1 reference: "from", "message_type", and anything starting "google" or "gcm").
    static func isReserved(_ key: String) -> Bool {
        key == "from" || key == "message_type" || key.hasPrefix("google") || key.hasPrefix("gcm")
    }

    /// A `message` object shaped already (`{"token": …, "data": …}`), sent as it is.
    public init(message: JSON) { self.message = message }

    /// - Parameters:
    ///   - content: the Android content of the push's `data` (`PushData.content(for: .android)`).
    ///   - token: the installation's FCM registration token.
    ///   - notificationId: the push's objectId, sent as `data._nid`.
    ///   - timeToLive: seconds until the push's expiration, sent as `android.ttl`; clamped to FCM's range.
    public init(
        content: [String: JSON], token: String, notificationId: String, timeToLive: Int64?
    )
        throws(PushDataError)
    {
        let payload = try FCMMessage.payload(from: content, notificationId: notificationId)
        var message = payload
        message["token"] = .string(token)
        var android: [String: JSON] = [:]
        if let timeToLive {
            android["ttl"] = .string("\(min(max(timeToLive, 0), FCMMessage.maxTimeToLiveSeconds))s")
        }
        // A notification shown by FCM itself goes to the Android O channel the push names (LeanCloud's REST
        // guide); the key also stays in `data` for an app that shows the message itself.
        if payload["notification"] != nil, let channel = content["_notificationChannel"]?.stringValue {
            android["notification"] = ["channel_id": .string(channel)]
        }
        if !android.isEmpty { message["android"] = .object(android) }
        self.message = .object(message)
    }

    /// The validated `data` and `notification` members, size-checked.
    static func payload(from content: [String: JSON], notificationId: String) throws(PushDataError) -> [String: JSON] {
        let text = try AndroidNotificationText(content)
        var data: [String: JSON] = [:]
        for (key, value) in content {
            guard !FCMMessage.isReserved(key) else { throw .invalid("data key '\(key)' is reserved by FCM") }
            data[key] = .string(value.stringValue ?? value.encoded())
        }
        data["_nid"] = .string(notificationId)
        var payload: [String: JSON] = ["data": .object(data)]
        if !text.silent, text.title != nil || text.body != nil {
            var notification: [String: JSON] = [:]
            notification["title"] = text.title.map { .string($0) }
            notification["body"] = text.body.map { .string($0) }
            payload["notification"] = .object(notification)
        }
        let size = JSON.object(payload).encoded().utf8.count
        guard size <= FCMMessage.maxPayloadBytes else {
            throw PushDataError(
                .payloadTooLarge(size: size, limit: FCMMessage.maxPayloadBytes),
                "FCM payload is \(size) bytes, over the \(FCMMessage.maxPayloadBytes)-byte limit")
        }
        return payload
    }
}

extension FCMMessage {
    /// The message for a `vendor: fcm` device, in the shape LeanCloud's FCM module reads (SPEC §12.3): it
    /// ignores a message without `notification`, and takes its content from `data.payload`, the LeanCloud JSON.
    /// `_notificationChannel` becomes `android.notification.channel_id`.
    public init(leanCloud content: VendorContent, token: String, timeToLive: Int64?) throws(PushDataError) {
        var notification: [String: JSON] = [:]
        notification["title"] = .string(content.title ?? "")
        notification["body"] = .string(content.body ?? "")
        var message: [String: JSON] = [
            "token": .string(token), "notification": .object(notification),
            "data": ["payload": .string(content.text)],
        ]
        var android: [String: JSON] = [:]
        if let timeToLive {
            android["ttl"] = .string("\(min(max(timeToLive, 0), FCMMessage.maxTimeToLiveSeconds))s")
        }
        if let channel = content.notificationChannel { android["notification"] = ["channel_id": .string(channel)] }
        if let priority = content.options["priority"]?.stringValue { android["priority"] = .string(priority) }
        if !android.isEmpty { message["android"] = .object(android) }
        let size = JSON.object(message).encoded().utf8.count - token.utf8.count
        guard size <= FCMMessage.maxPayloadBytes else {
            throw PushDataError(
                .payloadTooLarge(size: size, limit: FCMMessage.maxPayloadBytes),
                "FCM payload is \(size) bytes, over the \(FCMMessage.maxPayloadBytes)-byte limit")
        }
        self.message = .object(message)
    }
}
