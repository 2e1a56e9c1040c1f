import PushCore

/// The fields of an installation event worth showing in a history line; tokens are shortened.
enum EventSummary {
    static func keyFields(of event: RecordedEvent) -> String {
        switch try? event.decoded() {
        case .installation(.created(let created)):
            return shortened(created.fields).encoded()
        case .installation(.updated(let updated)):
            var parts: [String] = []
            if !updated.set.isEmpty { parts.append("set \(shortened(updated.set).encoded())") }
            if !updated.unset.isEmpty { parts.append("unset \(JSON.array(updated.unset.map(JSON.string)).encoded())") }
            return parts.joined(separator: " ")
        case .installation(.badgeReset):
            return "badge 0"
        case .installation(.badgeIncremented(let incremented)):
            return "badge \(incremented.badge.map(String.init) ?? "?")"
        case .installation(.opened(let open)):
            return [("kind", open.kind), ("pushId", open.pushId), ("attribution", open.attribution)]
                .compactMap { k, v in v.map { "\(k) \($0)" } }.joined(separator: " ")
        case .installation(.deleted(let removed)), .installation(.expired(let removed)):
            return removed.reason.map { "reason \($0)" } ?? ""
        case .installation(.invalidated(let invalidated)):
            return [("reason", invalidated.reason), ("token", invalidated.token)]
                .compactMap { k, v in v.map { "\(k) \(short($0))" } }.joined(separator: " ")
        case .presence(let presence):
            return presence.change.reason.map { "reason \($0)" } ?? ""
        default:
            return ""
        }
    }

    private static func shortened(_ fields: [String: JSON]) -> JSON {
        var o = fields
        for key in ["deviceToken", "registrationId", "subscriptionUri"] {
            if let t = o[key]?.stringValue { o[key] = .string(short(t)) }
        }
        return .object(o)
    }

    private static func short(_ token: String) -> String {
        token.count > 16 ? String(token.prefix(12)) + "…" : token
    }
}
