/// Event types of an object stream (`object:<className>:<objectId>`), and their data shapes. `types` names the
/// fields whose type the event fixes for the class (their first value), as `FieldType` descriptions. A `_User`
/// begins with `UserSignedUp` and changes with `UserUpdated` (SPEC §12.5), in the same shapes as
/// `ObjectCreated` and `ObjectUpdated`, so an audit can tell sign-ups apart; neither ever carries the password or
/// a session token, which live outside the log. Logs written before users could sign up hold `_User`
/// streams of Object events; both spellings fold the same way.
public enum ObjectEvent {
    public static let created = "ObjectCreated"
    public static let updated = "ObjectUpdated"
    public static let deleted = "ObjectDeleted"
    public static let userSignedUp = "UserSignedUp"
    public static let userUpdated = "UserUpdated"

    /// The types that start an object, and those that change one.
    public static let creations: Set<String> = [created, userSignedUp]
    public static let updates: Set<String> = [updated, userUpdated]
    public static let all: Set<String> = creations.union(updates).union([deleted])

    public static func createdType(className: String) -> String {
        className == ClassName.user ? userSignedUp : created
    }

    public static func updatedType(className: String) -> String {
        className == ClassName.user ? userUpdated : updated
    }

    public static func stream(className: String, objectId: String) -> String { "object:\(className):\(objectId)" }

    /// `{"className","objectId","fields","types","createdAt","updatedAt"}`
    public static func createdData(
        className: String, objectId: String, fields: [String: JSON], types: [String: FieldType], at: String
    ) -> JSON {
        [
            "className": .string(className), "objectId": .string(objectId), "fields": .object(fields),
            "types": typesJSON(types), "createdAt": .string(at), "updatedAt": .string(at),
        ]
    }

    /// `{"className","objectId","set","unset","types","updatedAt"}`
    public static func updatedData(
        className: String, objectId: String, set: [String: JSON], unset: [String], types: [String: FieldType],
        at: String
    ) -> JSON {
        [
            "className": .string(className), "objectId": .string(objectId), "set": .object(set),
            "unset": .array(unset.map { .string($0) }), "types": typesJSON(types), "updatedAt": .string(at),
        ]
    }

    /// `{"className","objectId","at"}`
    public static func deletedData(className: String, objectId: String, at: String) -> JSON {
        ["className": .string(className), "objectId": .string(objectId), "at": .string(at)]
    }

    static func typesJSON(_ types: [String: FieldType]) -> JSON {
        .object(types.mapValues { .string($0.description) })
    }
}
