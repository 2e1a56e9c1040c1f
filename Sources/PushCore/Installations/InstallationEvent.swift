/// Event types of an installation stream (`installation:<objectId>`), and their data shapes.
public enum InstallationEvent {
    public static let created = "InstallationCreated"
    public static let updated = "InstallationUpdated"
    public static let badgeReset = "BadgeReset"
    public static let badgeIncremented = "BadgeIncremented"
    public static let deleted = "InstallationDeleted"
    public static let invalidated = "InstallationInvalidated"
    public static let expired = "InstallationExpired"
    public static let opened = "AppOpened"

    public static func stream(_ objectId: String) -> String { "installation:\(objectId)" }

    /// `{"objectId","fields","createdAt","updatedAt"}`
    public static func createdData(objectId: String, fields: [String: JSON], at: String) -> JSON {
        ["objectId": .string(objectId), "fields": .object(fields), "createdAt": .string(at), "updatedAt": .string(at)]
    }

    /// `{"objectId","set","unset","updatedAt"}`
    public static func updatedData(objectId: String, set: [String: JSON], unset: [String], at: String) -> JSON {
        [
            "objectId": .string(objectId), "set": .object(set), "unset": .array(unset.map { .string($0) }),
            "updatedAt": .string(at),
        ]
    }

    /// Data of events that only touch `updatedAt` and maybe the badge: `{"objectId","updatedAt"[, "badge"]}`.
    public static func touchData(objectId: String, at: String, badge: Int64? = nil) -> JSON {
        var o: [String: JSON] = ["objectId": .string(objectId), "updatedAt": .string(at)]
        if let badge { o["badge"] = .int(badge) }
        return .object(o)
    }

    /// An app open (SPEC §6): `{"objectId","at","updatedAt","kind","platform"[,"pushId","attribution","deliveredAt"]}`.
    /// `at` is when the app was opened, `updatedAt` the installation's new updatedAt (never moved back),
    /// `kind` is `app` or `push`, and a push open names the push it is attributed to, how (`explicit`: the
    /// payload's `_nid`; `recent`: the last push delivered within 24 h) and when that push was delivered.
    public static func openedData(
        objectId: String, at: String, updatedAt: String, kind: String, platform: String,
        pushId: String?, attribution: String?, deliveredAt: String?
    ) -> JSON {
        var o: [String: JSON] = [
            "objectId": .string(objectId), "at": .string(at), "updatedAt": .string(updatedAt),
            "kind": .string(kind), "platform": .string(platform),
        ]
        if let pushId { o["pushId"] = .string(pushId) }
        if let attribution { o["attribution"] = .string(attribution) }
        if let deliveredAt { o["deliveredAt"] = .string(deliveredAt) }
        return .object(o)
    }

    public static func removedData(objectId: String, reason: String, at: String) -> JSON {
        ["objectId": .string(objectId), "reason": .string(reason), "at": .string(at)]
    }
}
