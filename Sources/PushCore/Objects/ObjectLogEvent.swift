/// An object stream's event: its kind and the payload of that kind, the stored type derived from the case. A
/// user's sign-up and changes carry the same payloads as any object's creation and update (`ObjectEvent`).
public enum ObjectLogEvent: Sendable, Equatable {
    case created(ObjectCreated)
    case updated(ObjectUpdated)
    case deleted(ObjectDeleted)
    case userSignedUp(ObjectCreated)
    case userUpdated(ObjectUpdated)

    /// A new object of `className`: a sign-up for `_User`.
    public static func creation(_ created: ObjectCreated) -> ObjectLogEvent {
        created.className == ClassName.user ? .userSignedUp(created) : .created(created)
    }

    /// A change of an object of `className`: a user's own kind for `_User`.
    public static func update(_ updated: ObjectUpdated) -> ObjectLogEvent {
        updated.className == ClassName.user ? .userUpdated(updated) : .updated(updated)
    }

    /// The type the log stores it under (`ObjectEvent`'s names).
    public var type: String {
        switch self {
        case .created: ObjectEvent.created
        case .updated: ObjectEvent.updated
        case .deleted: ObjectEvent.deleted
        case .userSignedUp: ObjectEvent.userSignedUp
        case .userUpdated: ObjectEvent.userUpdated
        }
    }

    /// The object's class and id.
    public var object: (className: String, objectId: String) {
        switch self {
        case .created(let p), .userSignedUp(let p): (p.className, p.objectId)
        case .updated(let p), .userUpdated(let p): (p.className, p.objectId)
        case .deleted(let p): (p.className, p.objectId)
        }
    }

    /// The field types the event fixes for the class (their stored names), empty for a deletion.
    public var types: [String: String] {
        switch self {
        case .created(let p), .userSignedUp(let p): p.types
        case .updated(let p), .userUpdated(let p): p.types
        case .deleted: [:]
        }
    }

    /// The stored data.
    public var json: JSON {
        switch self {
        case .created(let p), .userSignedUp(let p): p.json
        case .updated(let p), .userUpdated(let p): p.json
        case .deleted(let p): p.json
        }
    }

    /// Reads a stored event of an object stream; nil for a type that is not an object event.
    public init?(type: String, json: JSON) throws {
        let read = EventFields(json, event: type)
        switch type {
        case ObjectEvent.created: self = .created(try ObjectCreated(read))
        case ObjectEvent.updated: self = .updated(try ObjectUpdated(read))
        case ObjectEvent.deleted: self = .deleted(try ObjectDeleted(read))
        case ObjectEvent.userSignedUp: self = .userSignedUp(try ObjectCreated(read))
        case ObjectEvent.userUpdated: self = .userUpdated(try ObjectUpdated(read))
        default: return nil
        }
    }
}

/// `ObjectCreated` / `UserSignedUp`: the object's first fields, and the types they fix for the class (the
/// fields the class had no type for yet, as `FieldType` names). Never a password or session token.
public struct ObjectCreated: Sendable, Equatable {
    public var className: String
    public var objectId: String
    public var fields: [String: JSON]
    public var types: [String: String]
    public var createdAt: String
    public var updatedAt: String

    public init(className: String, objectId: String, fields: [String: JSON], types: [String: FieldType], at: String) {
        self.className = className
        self.objectId = objectId
        self.fields = fields
        self.types = types.mapValues(\.description)
        self.createdAt = at
        self.updatedAt = at
    }

    init(_ read: EventFields) throws {
        className = try read.string("className")
        objectId = try read.string("objectId")
        fields = read.object("fields") ?? [:]
        types = ObjectEvent.typeNames(read.object("types"))
        createdAt = try read.string("createdAt")
        updatedAt = try read.string("updatedAt")
    }

    public var json: JSON {
        [
            "className": .string(className), "objectId": .string(objectId), "fields": .object(fields),
            "types": .object(types.mapValues(JSON.string)), "createdAt": .string(createdAt),
            "updatedAt": .string(updatedAt),
        ]
    }
}

/// `ObjectUpdated` / `UserUpdated`: fields set and unset, and the types the set ones fix for the class.
public struct ObjectUpdated: Sendable, Equatable {
    public var className: String
    public var objectId: String
    public var set: [String: JSON]
    public var unset: [String]
    public var types: [String: String]
    public var updatedAt: String

    public init(
        className: String, objectId: String, set: [String: JSON], unset: [String], types: [String: FieldType],
        at: String
    ) {
        self.className = className
        self.objectId = objectId
        self.set = set
        self.unset = unset
        self.types = types.mapValues(\.description)
        self.updatedAt = at
    }

    init(_ read: EventFields) throws {
        className = try read.string("className")
        objectId = try read.string("objectId")
        set = read.object("set") ?? [:]
        unset = read.strings("unset")
        types = ObjectEvent.typeNames(read.object("types"))
        updatedAt = try read.string("updatedAt")
    }

    public var json: JSON {
        [
            "className": .string(className), "objectId": .string(objectId), "set": .object(set),
            "unset": .array(unset.map(JSON.string)), "types": .object(types.mapValues(JSON.string)),
            "updatedAt": .string(updatedAt),
        ]
    }
}

/// `ObjectDeleted`.
public struct ObjectDeleted: Sendable, Equatable {
    public var className: String
    public var objectId: String
    public var at: String

    public init(className: String, objectId: String, at: String) {
        self.className = className
        self.objectId = objectId
        self.at = at
    }

    init(_ read: EventFields) throws {
        className = try read.string("className")
        objectId = try read.string("objectId")
        at = try read.string("at")
    }

    public var json: JSON { ["className": .string(className), "objectId": .string(objectId), "at": .string(at)] }
}

extension ObjectEvent {
    /// The stored `types` map; a name that is not text reads as empty, as `class_fields` has always taken it.
    static func typeNames(_ stored: [String: JSON]?) -> [String: String] {
        (stored ?? [:]).mapValues { $0.stringValue ?? "" }
    }
}
