import PushCore

/// Keeps secrets out of the audit: app events carry the app key, the master key and provider settings.
/// Their values are replaced by `***`; that something was set or changed stays visible.
enum AuditRedaction {
    static let mask: JSON = "***"
    /// Events whose data holds app keys or settings.
    static let appEvents: Set<String> = ["AppCreated", "AppSettingsChanged"]

    static func redact(_ detail: JSON, action: String) -> JSON {
        appEvents.contains(action) ? redactSecrets(detail) : detail
    }

    /// Every value under a name that says key or secret (`appKey`, `masterKey`, `apns.key_id`,
    /// `fcm.client_secret`…), at any depth. Names alone (the `unset` list) are not secret.
    static func redactSecrets(_ value: JSON) -> JSON {
        switch value {
        case .object(let fields):
            var out: [String: JSON] = [:]
            for (name, field) in fields { out[name] = isSecretName(name) ? mask : redactSecrets(field) }
            return .object(out)
        case .array(let items):
            return .array(items.map(redactSecrets))
        default:
            return value
        }
    }

    static func isSecretName(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.contains("key") || lower.contains("secret")
    }
}
