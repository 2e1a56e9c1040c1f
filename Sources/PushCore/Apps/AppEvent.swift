/// Event types of an app's own stream (`app`); their payloads are `AppLogEvent`'s.
public enum AppEvent {
    public static let stream = "app"
    public static let created = "AppCreated"
    public static let settingsChanged = "AppSettingsChanged"

    public static let all: Set<String> = [created, settingsChanged]
}
