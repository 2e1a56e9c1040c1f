import Postgres
import PushCore

/// Event types of an app's own stream (`app`).
public enum AppEvent {
    public static let stream = "app"
    public static let created = "AppCreated"
    public static let settingsChanged = "AppSettingsChanged"
}

/// Projects `AppCreated` / `AppSettingsChanged` into `apps`, inline with the append.
public struct AppProjection: Projection {
    public let name = "apps"
    public let tables = ["apps"]

    public init() {}

    public func handles(_ eventType: String) -> Bool {
        eventType == AppEvent.created || eventType == AppEvent.settingsChanged
    }

    public func apply(_ event: ProjectedEvent, on conn: PGConnection, schema: String) async throws {
        guard case .other(_, let d) = event.event else { return }
        let table = "\(schema).apps"
        if event.type == AppEvent.created {
            try await conn.enqueue(
                """
                INSERT INTO \(unsafeRaw: table) (app_id, name, app_key, master_key, settings, created_at, version)
                VALUES (\(event.appId), \(d["name"]?.stringValue ?? ""), \(d["appKey"]?.stringValue ?? ""),
                        \(d["masterKey"]?.stringValue ?? ""), \(d["settings"] ?? [:])::jsonb,
                        \(d["createdAt"]?.stringValue)::timestamptz, \(event.version))
                """)
        } else {
            let unset = (d["unset"]?.arrayValue ?? []).compactMap(\.stringValue)
            try await conn.enqueue(
                """
                UPDATE \(unsafeRaw: table) SET settings = (settings || \(d["set"] ?? [:])::jsonb) - \(unset)::text[],
                    version = \(event.version)
                WHERE app_id = \(event.appId)
                """)
        }
    }
}
