import PushCore

/// The `message` of an HMS send without its tokens (docs/vendors.md): the LeanCloud JSON as `data`, where the
/// client module reads it, and unless the push is silent a notification whose click opens the module's
/// Activity with that JSON as its `content` extra.
enum HMSMessage {
    static func make(
        _ content: VendorContent, intentHost: String, category: String?, timeToLive: Int64?, maxTimeToLive: Int64
    ) -> [String: JSON] {
        var android: [String: JSON] = [:]
        if let category = content.options["category"]?.stringValue ?? category {
            android["category"] = .string(category)
        }
        for key in ["urgency", "target_user_type", "bi_tag", "collapse_key"] {
            if let value = content.options[key] { android[key] = value }
        }
        if let timeToLive { android["ttl"] = .string("\(min(max(timeToLive, 1), maxTimeToLive))s") }
        if !content.silent {
            var notification: [String: JSON] = [
                "click_action": [
                    "type": 1, "intent": .string(VendorText.clickIntent(host: intentHost, content: content.text)),
                ]
            ]
            if let title = content.title { notification["title"] = .string(title) }
            if let body = content.body { notification["body"] = .string(body) }
            if let channel = content.notificationChannel { notification["channel_id"] = .string(channel) }
            if let importance = content.options["importance"] { notification["importance"] = importance }
            android["notification"] = .object(notification)
        }
        var message: [String: JSON] = ["data": .string(content.text), "android": .object(android)]
        // A push's own `data.hms.message` (an HMS v1 message subtree, LeanCloud's documented form) goes over it.
        if let own = content.options["message"]?.objectValue { message = merged(message, own) }
        return message
    }

    /// `base` with `over` merged in, objects key by key.
    static func merged(_ base: [String: JSON], _ over: [String: JSON]) -> [String: JSON] {
        var out = base
        for (key, value) in over {
            if let inner = value.objectValue, let existing = out[key]?.objectValue {
                out[key] = .object(merged(existing, inner))
            } else {
                out[key] = value
            }
        }
        return out
    }
}
