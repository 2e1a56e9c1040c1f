/// Event types of an installation stream (`installation:<objectId>`); their payloads are `InstallationLogEvent`'s.
public enum InstallationEvent {
    public static let created = "InstallationCreated"
    public static let updated = "InstallationUpdated"
    public static let badgeReset = "BadgeReset"
    public static let badgeIncremented = "BadgeIncremented"
    public static let deleted = "InstallationDeleted"
    public static let invalidated = "InstallationInvalidated"
    public static let expired = "InstallationExpired"
    public static let opened = "AppOpened"

    public static let all: Set<String> = [
        created, updated, badgeReset, badgeIncremented, deleted, invalidated, expired, opened,
    ]

    public static func stream(_ objectId: String) -> String { "installation:\(objectId)" }
}
