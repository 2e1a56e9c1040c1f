import Postgres

/// `last_deliveries` (work state, not a projection): the last push delivered to each installation, so that
/// an open without `_nid` can be attributed to it (SPEC §6). Every batch's record writes one row per
/// reached installation, which made it PostgreSQL's largest cost in a fan-out.
///
/// A single `INSERT … ON CONFLICT DO UPDATE` would do it, but for every row PostgreSQL
/// walks the primary key from its root once to look for a conflict and, for a new row, a second time to
/// insert it. A batch's installations are one keyset page of targeting, so their rows sit side by side in
/// that index: an `UPDATE` joined to them over the page's range reads the range once (a hash or merge join
/// where the range is dense, per-row lookups where it is sparse, as the planner's statistics say); and a new
/// installation's row needs only a plain `INSERT`, whose one walk checks uniqueness (docs/decisions.md,
/// "`last_deliveries`").
enum LastDeliveries {
    /// Names `pushId`, delivered at `at`, as the last push to have reached each of `objectIds` (a batch's
    /// reached installations, in the order targeting paged them: by object id, as the database orders
    /// them). A row naming a later delivery is left alone.
    static func remember(
        appId: String, pushId: String, objectIds: [String], at: String, on conn: PGConnection
    )
        async throws
    {
        guard let first = objectIds.first, let last = objectIds.last else { return }
        // The page's first and last ids bound the range. Should the ids not be in the database's order, the
        // range misses rows: they are then taken for new ones, their INSERT meets a unique violation, and the
        // fallback below still writes the right rows, only slower.
        let rewritten = try await conn.query(
            """
            UPDATE last_deliveries l SET push_id = \(pushId), delivered_at = \(at)::timestamptz
            FROM unnest(\(objectIds)::text[]) AS r(id)
            WHERE l.app_id = \(appId) AND l.installation_id BETWEEN \(first) AND \(last)
              AND l.installation_id = r.id AND l.delivered_at <= \(at)::timestamptz
            """
        ).affectedRows
        guard rewritten < objectIds.count else { return }
        // Rows for installations this push reached first. Another transaction (a concurrent batch of
        // another push, a channel ack) may create one of them meanwhile: the plain INSERT then fails on the
        // primary key, and only its savepoint is rolled back before the upsert does it row by row.
        try await conn.enqueue("SAVEPOINT new_last_deliveries")
        do {
            try await conn.query(
                """
                INSERT INTO last_deliveries (app_id, installation_id, push_id, delivered_at)
                SELECT \(appId), r.id, \(pushId), \(at)::timestamptz FROM unnest(\(objectIds)::text[]) AS r(id)
                WHERE NOT EXISTS (
                    SELECT FROM last_deliveries l
                    WHERE l.app_id = \(appId) AND l.installation_id BETWEEN \(first) AND \(last)
                      AND l.installation_id = r.id)
                """)
        } catch let error as PGError where error.isUniqueViolation {
            try await conn.query("ROLLBACK TO SAVEPOINT new_last_deliveries")
            try await conn.query(
                """
                INSERT INTO last_deliveries (app_id, installation_id, push_id, delivered_at)
                SELECT \(appId), id, \(pushId), \(at)::timestamptz FROM unnest(\(objectIds)::text[]) AS id
                ON CONFLICT (app_id, installation_id) DO UPDATE SET push_id = excluded.push_id,
                    delivered_at = excluded.delivered_at
                WHERE last_deliveries.delivered_at <= excluded.delivered_at
                """)
        }
    }
}
