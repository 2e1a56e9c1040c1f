import PushCore

/// The fields of an installation event worth showing in a history line; tokens are shortened.
enum EventSummary {
    static func keyFields(of event: RecordedEvent) -> String {
        let d = event.data
        switch event.type {
        case InstallationEvent.created:
            return shortened(d["fields"] ?? [:]).encoded()
        case InstallationEvent.updated:
            var parts: [String] = []
            if let set = d["set"], set.objectValue?.isEmpty == false { parts.append("set \(shortened(set).encoded())") }
            if let unset = d["unset"], unset.arrayValue?.isEmpty == false { parts.append("unset \(unset.encoded())") }
            return parts.joined(separator: " ")
        case InstallationEvent.badgeReset:
            return "badge 0"
        case InstallationEvent.badgeIncremented:
            return "badge \(d["badge"]?.encoded() ?? "?")"
        case InstallationEvent.opened:
            return ["kind", "pushId", "attribution"].compactMap { k in d[k]?.stringValue.map { "\(k) \($0)" } }
                .joined(separator: " ")
        default:
            return ["reason", "token"].compactMap { k in d[k]?.stringValue.map { "\(k) \(short($0))" } }
                .joined(separator: " ")
        }
    }

    private static func shortened(_ json: JSON) -> JSON {
        guard var o = json.objectValue else { return json }
        for key in ["deviceToken", "registrationId", "subscriptionUri"] {
            if let t = o[key]?.stringValue { o[key] = .string(short(t)) }
        }
        return .object(o)
    }

    private static func short(_ token: String) -> String {
        token.count > 16 ? String(token.prefix(12)) + "…" : token
    }
}
