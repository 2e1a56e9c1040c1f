import Postgres
import PushCore

/// Projects object streams (`object:<className>:<objectId>`) into `objects`, and the field types their events
/// fix into `class_fields`. Applied inline with every append (read-your-writes) and replayed by `rebuild`.
public struct ObjectProjection: Projection {
    public let name = "objects"
    public let tables = ["objects", "class_fields"]

    public init() {}

    public func handles(_ eventType: String) -> Bool { ObjectEvent.all.contains(eventType) }

    public func apply(_ event: ProjectedEvent, on conn: PGConnection, schema: String) async throws {
        guard case .object(let object) = event.event else { return }
        let (className, objectId) = object.object
        let table = "\(schema).objects"
        let types = object.types
        if !types.isEmpty {
            // The first value of a field fixes its type; the command checked there was none yet (under the
            // field's lock), so a conflict can only be the same type written again.
            let fields = types.keys.sorted()
            try await conn.enqueue(
                .reusingPlan(
                    """
                    INSERT INTO \(unsafeRaw: schema).class_fields (app_id, class_name, field, type)
                    SELECT \(event.appId), \(className), f, t
                    FROM unnest(\(fields)::text[], \(fields.map { types[$0] ?? "" })::text[]) AS x(f, t)
                    ON CONFLICT DO NOTHING
                    """))
        }
        switch object {
        case .created(let created), .userSignedUp(let created):
            try await conn.enqueue(
                .reusingPlan(
                    """
                    INSERT INTO \(unsafeRaw: table)
                        (app_id, class_name, object_id, data, created_at, updated_at, version)
                    VALUES (\(event.appId), \(className), \(objectId), \(JSON.object(created.fields))::jsonb,
                            \(created.createdAt)::timestamptz, \(created.updatedAt)::timestamptz, \(event.version))
                    """))
        case .updated(let updated), .userUpdated(let updated):
            try await conn.enqueue(
                .reusingPlan(
                    """
                    UPDATE \(unsafeRaw: table)
                    SET data = (data || \(JSON.object(updated.set))::jsonb) - \(updated.unset)::text[],
                        updated_at = \(updated.updatedAt)::timestamptz, version = \(event.version)
                    WHERE app_id = \(event.appId) AND class_name = \(className) AND object_id = \(objectId)
                    """))
        case .deleted:
            try await conn.enqueue(
                """
                DELETE FROM \(unsafeRaw: table)
                WHERE app_id = \(event.appId) AND class_name = \(className) AND object_id = \(objectId)
                """)
        }
    }
}
