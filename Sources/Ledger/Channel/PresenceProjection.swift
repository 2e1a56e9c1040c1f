import Postgres
import PushCore

/// Projects presence streams into `channel_presence` (SPEC §12.2). Applied inline, so `online` answers as soon
/// as a connect is recorded. A disconnect only ends the session it belongs to: when a device reconnects to
/// another process before its old connection is noticed dead, the late disconnect leaves the new one alone.
public struct PresenceProjection: Projection {
    public let name = "presence"
    public let tables = ["channel_presence"]

    public init() {}

    public func handles(_ eventType: String) -> Bool {
        eventType == PresenceEvent.connected || eventType == PresenceEvent.disconnected
    }

    public func apply(_ event: ProjectedEvent, on conn: PGConnection, schema: String) async throws {
        guard case .presence(let presence) = event.event else { return }
        let change = presence.change
        let table = "\(schema).channel_presence"
        switch presence {
        case .connected:
            try await conn.enqueue(
                """
                INSERT INTO \(unsafeRaw: table) (app_id, object_id, installation_id, online, since, last_seen, session)
                VALUES (\(event.appId), \(change.objectId), \(change.installationId), true,
                        \(change.at)::timestamptz, \(change.at)::timestamptz, \(change.session))
                ON CONFLICT (app_id, object_id) DO UPDATE SET online = true, since = excluded.since,
                    last_seen = greatest(\(unsafeRaw: table).last_seen, excluded.last_seen), session = excluded.session,
                    installation_id = excluded.installation_id
                """)
        case .disconnected:
            try await conn.enqueue(
                """
                UPDATE \(unsafeRaw: table) SET online = false, since = \(change.at)::timestamptz,
                    last_seen = greatest(last_seen, \(change.at)::timestamptz)
                WHERE app_id = \(event.appId) AND object_id = \(change.objectId) AND session = \(change.session)
                """)
        }
    }
}
