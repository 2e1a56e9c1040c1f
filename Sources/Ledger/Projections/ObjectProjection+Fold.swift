import Postgres
import PushCore

/// The rebuild of `objects` and `class_fields` as statements over the whole log.
extension ObjectProjection: LogFoldingProjection {
    public var eventTypes: [String] { ObjectEvent.all.sorted() }

    public func fold(into schema: String, apps: [String], on conn: PGConnection) async throws {
        // `apply` skips an event without both names; the rest, per object, go through the installation step
        // (migration 0004), whose created/updated/removed branches are exactly `apply`'s three, as in ObjectFold.
        let named: PGQuery = """
            app_id = ANY(\(apps)::text[]) AND type = ANY(\(eventTypes)::text[])
              AND jsonb_typeof(data -> 'className') = 'string' AND jsonb_typeof(data -> 'objectId') = 'string'
            """
        try await conn.query(
            """
            INSERT INTO \(unsafeRaw: schema).objects (app_id, class_name, object_id, data, created_at, updated_at, version)
            SELECT app_id, class_name, object_id, (s).data, (s).created_at, (s).updated_at, (s).version
            FROM (SELECT app_id, data ->> 'className' AS class_name, data ->> 'objectId' AS object_id,
                      installation_replay_fold(
                          CASE WHEN type = ANY(\(ObjectEvent.creations.sorted())::text[]) THEN \(InstallationEvent.created)
                               WHEN type = ANY(\(ObjectEvent.updates.sorted())::text[]) THEN \(InstallationEvent.updated)
                               ELSE \(InstallationEvent.deleted) END,
                          data, version ORDER BY transaction_id, position) AS s
                  FROM events WHERE \(named)
                  GROUP BY app_id, data ->> 'className', data ->> 'objectId') f
            WHERE (s).data IS NOT NULL
            """)
        // The first type written for a field stays (`apply` inserts with ON CONFLICT DO NOTHING).
        try await conn.query(
            """
            INSERT INTO \(unsafeRaw: schema).class_fields (app_id, class_name, field, type)
            SELECT DISTINCT ON (e.app_id, e.data ->> 'className', t.field) e.app_id, e.data ->> 'className', t.field,
                CASE WHEN jsonb_typeof(t.field_type) = 'string' THEN t.field_type #>> '{}' ELSE '' END
            FROM events e CROSS JOIN LATERAL jsonb_each(e.data -> 'types') AS t(field, field_type)
            WHERE \(named) AND jsonb_typeof(e.data -> 'types') = 'object'
            ORDER BY e.app_id, e.data ->> 'className', t.field, e.transaction_id, e.position
            """)
    }
}
