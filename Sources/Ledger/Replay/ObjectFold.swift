import Foundation
import Postgres
import PushCore

/// Folds one app's object streams (`object:<className>:<objectId>`) up to an instant into a `ReplayScratch`,
/// so the sub-queries of `$inQuery`/`$select` read users and other objects as they stood then (a user's
/// location at the push, not today's). Same instant rule and log order as `InstallationFold`.
struct ObjectFold: Sendable {
    let appId: String
    let at: Date

    /// One ordered aggregate per object. ObjectProjection's three branches (insert the fields; merge `set` and
    /// drop `unset`; delete) are exactly InstallationProjection's created/updated/removed ones, so the object
    /// events are read as those and folded by the installation step (migration 0004) rather than a copy of it;
    /// `ObjectReplayTests` prove the result equal to the live `objects` table. Returns the events folded.
    func setBased(into scratch: ReplayScratch, on conn: PGConnection) async throws -> Int {
        let row = try await conn.query(
            """
            WITH relevant AS MATERIALIZED (
                SELECT stream, data ->> 'className' AS class_name, data ->> 'objectId' AS object_id,
                    CASE WHEN type = ANY(\(ObjectEvent.creations.sorted())::text[]) THEN \(InstallationEvent.created)
                         WHEN type = ANY(\(ObjectEvent.updates.sorted())::text[]) THEN \(InstallationEvent.updated)
                         ELSE \(InstallationEvent.deleted) END AS step,
                    data, version, transaction_id, position
                FROM events
                WHERE app_id = \(appId) AND type = ANY(\(Array(ObjectEvent.all))::text[])
                  AND event_time(data, recorded_at) <= \(at)::timestamptz
            ),
            folded AS (
                SELECT class_name, object_id, (s).data, (s).created_at, (s).updated_at, (s).version
                FROM (SELECT min(class_name) AS class_name, min(object_id) AS object_id,
                          installation_replay_fold(step, data, version ORDER BY transaction_id, position) AS s
                      FROM relevant GROUP BY stream) f
                WHERE (s).data IS NOT NULL AND class_name IS NOT NULL AND object_id IS NOT NULL
            ),
            inserted AS (
                INSERT INTO \(unsafeRaw: scratch.objects)
                    (app_id, class_name, object_id, data, created_at, updated_at, version)
                SELECT \(appId), class_name, object_id, data, created_at, updated_at, version FROM folded
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM relevant) AS events, (SELECT count(*) FROM inserted) AS rows
            """)
        // Keyed after the bulk insert (cheaper than maintaining it row by row): explain looks objects up by key.
        try await conn.execute(
            unsafeScript: """
                ALTER TABLE \(scratch.objects) ADD PRIMARY KEY (app_id, class_name, object_id);
                ANALYZE \(scratch.objects);
                """)
        return try row[0].int("events")
    }
}
