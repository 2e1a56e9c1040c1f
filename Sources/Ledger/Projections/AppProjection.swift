import Postgres
import PushCore

/// Projects `AppCreated` / `AppSettingsChanged` into `apps`, inline with the append.
public struct AppProjection: Projection {
    public let name = "apps"
    public let tables = ["apps"]

    public init() {}

    public func handles(_ eventType: String) -> Bool {
        AppEvent.all.contains(eventType)
    }

    public func apply(_ event: ProjectedEvent, on conn: PGConnection, schema: String) async throws {
        guard case .app(let app) = event.event else { return }
        let table = "\(schema).apps"
        switch app {
        case .created(let created):
            try await conn.enqueue(
                """
                INSERT INTO \(unsafeRaw: table) (app_id, name, app_key, master_key, settings, created_at, version)
                VALUES (\(event.appId), \(created.name), \(created.appKey), \(created.masterKey),
                        \(JSON.object(created.settings))::jsonb, \(created.createdAt)::timestamptz, \(event.version))
                """)
        case .settingsChanged(let changed):
            try await conn.enqueue(
                """
                UPDATE \(unsafeRaw: table)
                SET settings = (settings || \(JSON.object(changed.set))::jsonb) - \(changed.unset)::text[],
                    version = \(event.version)
                WHERE app_id = \(event.appId)
                """)
        }
    }
}
