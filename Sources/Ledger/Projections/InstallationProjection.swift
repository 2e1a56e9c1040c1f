import Postgres
import PushCore

/// Projects installation streams into `installations`. Applied inline with every append (read-your-writes)
/// and replayed by `rebuild`. Derived columns are generated from `data` by PostgreSQL, so the projection
/// writes only `data`, the dates and the version.
public struct InstallationProjection: Projection {
    public let name = "installations"
    public let tables = ["installations"]

    public init() {}

    public func handles(_ eventType: String) -> Bool {
        switch eventType {
        case InstallationEvent.created, InstallationEvent.updated, InstallationEvent.badgeReset,
            InstallationEvent.badgeIncremented, InstallationEvent.opened, InstallationEvent.deleted,
            InstallationEvent.invalidated, InstallationEvent.expired:
            return true
        default:
            return false
        }
    }

    public func apply(_ event: RecordedEvent, on conn: PGConnection, schema: String) async throws {
        let d = event.data
        guard let objectId = d["objectId"]?.stringValue else { return }
        let table = "\(schema).installations"
        switch event.type {
        case InstallationEvent.created:
            try await conn.query(
                """
                INSERT INTO \(unsafeRaw: table) (app_id, object_id, data, created_at, updated_at, version)
                VALUES (\(event.appId), \(objectId), \(d["fields"] ?? [:])::jsonb,
                        \(d["createdAt"]?.stringValue)::timestamptz, \(d["updatedAt"]?.stringValue)::timestamptz,
                        \(event.version))
                """)
        case InstallationEvent.updated:
            let unset = (d["unset"]?.arrayValue ?? []).compactMap(\.stringValue)
            try await conn.query(
                """
                UPDATE \(unsafeRaw: table)
                SET data = (data || \(d["set"] ?? [:])::jsonb) - \(unset)::text[],
                    updated_at = \(d["updatedAt"]?.stringValue)::timestamptz, version = \(event.version)
                WHERE app_id = \(event.appId) AND object_id = \(objectId)
                """)
        case InstallationEvent.badgeReset, InstallationEvent.badgeIncremented, InstallationEvent.opened:
            // Opens and badge changes keep the installation valid: they bump updatedAt (SPEC §6).
            let badge: JSON = event.type == InstallationEvent.badgeReset ? .int(0) : (d["badge"] ?? .null)
            try await conn.query(
                """
                UPDATE \(unsafeRaw: table)
                SET data = CASE WHEN \(badge)::jsonb = 'null'::jsonb THEN data
                                ELSE jsonb_set(data, '{badge}', \(badge)::jsonb) END,
                    updated_at = \(d["updatedAt"]?.stringValue)::timestamptz, version = \(event.version)
                WHERE app_id = \(event.appId) AND object_id = \(objectId)
                """)
        default:
            try await conn.query(
                "DELETE FROM \(unsafeRaw: table) WHERE app_id = \(event.appId) AND object_id = \(objectId)")
        }
    }
}
