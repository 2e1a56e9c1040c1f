/// Event types of an object stream (`object:<className>:<objectId>`); their payloads are `ObjectLogEvent`'s. A `_User`
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

    public static func stream(className: String, objectId: String) -> String { "object:\(className):\(objectId)" }
}
