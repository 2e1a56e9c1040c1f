/// An installation stream's event: its kind and the payload of that kind. The stored type string is derived from
/// the case, as for `PushLogEvent`. The payloads are written and read by hand: a save writes one per request and
/// a rebuild reads every one, and the field maps they carry are JSON already. Fields that older events lack, or
/// that only some writers set, are optional, so the log's existing events still read.
public enum InstallationLogEvent: Sendable, Equatable {
    case created(InstallationCreated)
    case updated(InstallationUpdated)
    case badgeReset(BadgeChanged)
    case badgeIncremented(BadgeChanged)
    case opened(AppOpened)
    case deleted(InstallationRemoved)
    case invalidated(InstallationInvalidated)
    case expired(InstallationRemoved)

    /// The type the log stores it under (`InstallationEvent`'s names).
    public var type: String {
        switch self {
        case .created: InstallationEvent.created
        case .updated: InstallationEvent.updated
        case .badgeReset: InstallationEvent.badgeReset
        case .badgeIncremented: InstallationEvent.badgeIncremented
        case .opened: InstallationEvent.opened
        case .deleted: InstallationEvent.deleted
        case .invalidated: InstallationEvent.invalidated
        case .expired: InstallationEvent.expired
        }
    }

    /// The installation the event is about (empty for a token invalidated without a known installation).
    public var objectId: String {
        switch self {
        case .created(let p): p.objectId
        case .updated(let p): p.objectId
        case .badgeReset(let p), .badgeIncremented(let p): p.objectId
        case .opened(let p): p.objectId
        case .deleted(let p), .expired(let p): p.objectId
        case .invalidated(let p): p.objectId
        }
    }

    /// The stored data.
    public var json: JSON {
        switch self {
        case .created(let p): p.json
        case .updated(let p): p.json
        case .badgeReset(let p), .badgeIncremented(let p): p.json
        case .opened(let p): p.json
        case .deleted(let p), .expired(let p): p.json
        case .invalidated(let p): p.json
        }
    }

    /// Reads a stored event of an installation stream; nil for a type that is not an installation event.
    public init?(type: String, json: JSON) throws {
        let read = EventFields(json, event: type)
        switch type {
        case InstallationEvent.created: self = .created(try InstallationCreated(read))
        case InstallationEvent.updated: self = .updated(try InstallationUpdated(read))
        case InstallationEvent.badgeReset: self = .badgeReset(try BadgeChanged(read))
        case InstallationEvent.badgeIncremented: self = .badgeIncremented(try BadgeChanged(read))
        case InstallationEvent.opened: self = .opened(try AppOpened(read))
        case InstallationEvent.deleted: self = .deleted(try InstallationRemoved(read))
        case InstallationEvent.invalidated: self = .invalidated(try InstallationInvalidated(read))
        case InstallationEvent.expired: self = .expired(try InstallationRemoved(read))
        default: return nil
        }
    }
}

/// `InstallationCreated`: the installation's first fields.
public struct InstallationCreated: Sendable, Equatable {
    public var objectId: String
    public var fields: [String: JSON]
    public var createdAt: String
    public var updatedAt: String

    public init(objectId: String, fields: [String: JSON], at: String) {
        self.objectId = objectId
        self.fields = fields
        self.createdAt = at
        self.updatedAt = at
    }

    init(_ read: EventFields) throws {
        objectId = try read.string("objectId")
        fields = read.object("fields") ?? [:]
        createdAt = try read.string("createdAt")
        updatedAt = try read.string("updatedAt")
    }

    public var json: JSON {
        [
            "objectId": .string(objectId), "fields": .object(fields), "createdAt": .string(createdAt),
            "updatedAt": .string(updatedAt),
        ]
    }
}

/// `InstallationUpdated`: fields set and unset. An update the fan-out makes when a vendor says a token is
/// unusable (`valid: false`) also says when and why (`at`, `invalidatedBy`), and keeps `updatedAt` as it was.
public struct InstallationUpdated: Sendable, Equatable {
    public var objectId: String
    public var set: [String: JSON]
    public var unset: [String]
    public var updatedAt: String?
    public var at: String?
    public var invalidatedBy: Invalidation?

    /// Why the fan-out marked the installation not valid: the vendor's reason and the token it refused.
    public struct Invalidation: Sendable, Equatable {
        public var reason: String
        public var token: String

        public init(reason: String, token: String) {
            self.reason = reason
            self.token = token
        }
    }

    public init(
        objectId: String, set: [String: JSON], unset: [String], updatedAt: String, at: String? = nil,
        invalidatedBy: Invalidation? = nil
    ) {
        self.objectId = objectId
        self.set = set
        self.unset = unset
        self.updatedAt = updatedAt
        self.at = at
        self.invalidatedBy = invalidatedBy
    }

    init(_ read: EventFields) throws {
        objectId = try read.string("objectId")
        set = read.object("set") ?? [:]
        unset = (read.json["unset"]?.arrayValue ?? []).compactMap(\.stringValue)
        updatedAt = read.optionalString("updatedAt")
        at = read.optionalString("at")
        invalidatedBy = read.object("invalidatedBy").map {
            Invalidation(reason: $0["reason"]?.stringValue ?? "", token: $0["token"]?.stringValue ?? "")
        }
    }

    public var json: JSON {
        var o: [String: JSON] = [
            "objectId": .string(objectId), "set": .object(set), "unset": .array(unset.map { .string($0) }),
        ]
        if let updatedAt { o["updatedAt"] = .string(updatedAt) }
        if let at { o["at"] = .string(at) }
        if let invalidatedBy {
            o["invalidatedBy"] = ["reason": .string(invalidatedBy.reason), "token": .string(invalidatedBy.token)]
        }
        return .object(o)
    }
}

/// `BadgeReset` (the device's doing: it moves `updatedAt`) and `BadgeIncremented` (a push's: the new badge,
/// and when, leaving `updatedAt` alone).
public struct BadgeChanged: Sendable, Equatable {
    public var objectId: String
    public var badge: Int64?
    public var updatedAt: String?
    public var at: String?

    /// A reset by the device at `updatedAt`.
    public init(objectId: String, resetAt updatedAt: String) {
        self.objectId = objectId
        self.updatedAt = updatedAt
    }

    /// A push's increment to `badge` at `at`.
    public init(objectId: String, badge: Int64, at: String) {
        self.objectId = objectId
        self.badge = badge
        self.at = at
    }

    init(_ read: EventFields) throws {
        objectId = try read.string("objectId")
        badge = read.json["badge"]?.intValue
        updatedAt = read.optionalString("updatedAt")
        at = read.optionalString("at")
    }

    public var json: JSON {
        var o: [String: JSON] = ["objectId": .string(objectId)]
        if let badge { o["badge"] = .int(badge) }
        if let updatedAt { o["updatedAt"] = .string(updatedAt) }
        if let at { o["at"] = .string(at) }
        return .object(o)
    }
}

/// `AppOpened` (SPEC §6): `at` is when the app was opened, `updatedAt` the installation's new updatedAt (never
/// moved back), `kind` is `app` or `push`, and a push open names the push it is attributed to, how
/// (`explicit`: the payload's `_nid`; `recent`: the last push delivered within 24 h) and when that push was
/// delivered.
public struct AppOpened: Sendable, Equatable {
    public var objectId: String
    public var at: String
    public var updatedAt: String?
    public var kind: String?
    public var platform: String?
    public var pushId: String?
    public var attribution: String?
    public var deliveredAt: String?

    public init(
        objectId: String, at: String, updatedAt: String, kind: String, platform: String, pushId: String?,
        attribution: String?, deliveredAt: String?
    ) {
        self.objectId = objectId
        self.at = at
        self.updatedAt = updatedAt
        self.kind = kind
        self.platform = platform
        self.pushId = pushId
        self.attribution = attribution
        self.deliveredAt = deliveredAt
    }

    init(_ read: EventFields) throws {
        objectId = try read.string("objectId")
        at = try read.string("at")
        updatedAt = read.optionalString("updatedAt")
        kind = read.optionalString("kind")
        platform = read.optionalString("platform")
        pushId = read.optionalString("pushId")
        attribution = read.optionalString("attribution")
        deliveredAt = read.optionalString("deliveredAt")
    }

    public var json: JSON {
        var o: [String: JSON] = ["objectId": .string(objectId), "at": .string(at)]
        for (key, value) in [
            ("updatedAt", updatedAt), ("kind", kind), ("platform", platform), ("pushId", pushId),
            ("attribution", attribution), ("deliveredAt", deliveredAt),
        ] {
            if let value { o[key] = .string(value) }
        }
        return .object(o)
    }
}

/// `InstallationDeleted` (`reason` `api`) and `InstallationExpired` (`stale`, with the `updatedAt` it had).
public struct InstallationRemoved: Sendable, Equatable {
    public var objectId: String
    public var reason: String?
    public var at: String?
    public var lastUpdatedAt: String?

    public init(objectId: String, reason: String, at: String, lastUpdatedAt: String? = nil) {
        self.objectId = objectId
        self.reason = reason
        self.at = at
        self.lastUpdatedAt = lastUpdatedAt
    }

    init(_ read: EventFields) throws {
        objectId = try read.string("objectId")
        reason = read.optionalString("reason")
        at = read.optionalString("at")
        lastUpdatedAt = read.optionalString("lastUpdatedAt")
    }

    public var json: JSON {
        var o: [String: JSON] = ["objectId": .string(objectId)]
        if let reason { o["reason"] = .string(reason) }
        if let at { o["at"] = .string(at) }
        if let lastUpdatedAt { o["lastUpdatedAt"] = .string(lastUpdatedAt) }
        return .object(o)
    }
}

/// `InstallationInvalidated`: a provider said the token is dead (`reason`, `since` when), so the installation
/// goes and the token is remembered. `objectId` is empty for a `/push/devices` token no installation held.
public struct InstallationInvalidated: Sendable, Equatable {
    public var objectId: String
    public var token: String?
    public var reason: String?
    public var since: String?
    public var at: String?

    public init(objectId: String, token: String, reason: String, since: String, at: String) {
        self.objectId = objectId
        self.token = token
        self.reason = reason
        self.since = since
        self.at = at
    }

    init(_ read: EventFields) throws {
        objectId = read.optionalString("objectId") ?? ""
        token = read.optionalString("token")
        reason = read.optionalString("reason")
        since = read.optionalString("since")
        at = read.optionalString("at")
    }

    public var json: JSON {
        var o: [String: JSON] = ["objectId": .string(objectId)]
        for (key, value) in [("token", token), ("reason", reason), ("since", since), ("at", at)] {
            if let value { o[key] = .string(value) }
        }
        return .object(o)
    }
}
