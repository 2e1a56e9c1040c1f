import Foundation
import Postgres
import PushCore

/// Folds one app's log up to an instant into a `ReplayScratch`: the app's settings and its installations as
/// they stood then. "Up to an instant" means `event_time(data, recorded_at) <= at` (migration 0003), the
/// time every report uses; events are applied in log order, (transaction_id, position).
struct InstallationFold: Sendable {
    let appId: String
    let at: Date

    /// The event types `InstallationProjection` handles, in the order of its `switch`.
    static let eventTypes = [
        InstallationEvent.created, InstallationEvent.updated, InstallationEvent.badgeReset,
        InstallationEvent.badgeIncremented, InstallationEvent.opened, InstallationEvent.deleted,
        InstallationEvent.invalidated, InstallationEvent.expired,
    ]

    /// Planner settings for the fold, for the rest of the transaction. The row estimate for "events up to the
    /// instant" is tiny (the planner cannot see through `event_time`), which makes it join the app's events with
    /// their per-installation counts in a nested loop: quadratic, minutes for 100,000 installations. Hash joins
    /// and memory for the sort and hashes keep it linear.
    static func tune(_ conn: PGConnection) async throws {
        try await conn.execute(unsafeScript: "SET LOCAL enable_nestloop = off; SET LOCAL work_mem = '256MB'")
    }

    /// The whole app in a few statements; returns the number of installation events folded.
    func setBased(into scratch: ReplayScratch, on conn: PGConnection) async throws -> Int {
        // Most installations have a single event, their creation: those are copied directly (exactly the
        // step's InstallationCreated branch); only streams with several events go through the aggregate,
        // which is what keeps the fold fast.
        let row = try await conn.query(
            """
            WITH relevant AS MATERIALIZED (
                SELECT data ->> 'objectId' AS object_id, type, data, version, transaction_id, position
                FROM events
                WHERE app_id = \(appId) AND type = ANY(\(Self.eventTypes)::text[])
                  AND jsonb_typeof(data -> 'objectId') = 'string'
                  AND event_time(data, recorded_at) <= \(at)::timestamptz
            ),
            counted AS (SELECT object_id, count(*) AS n FROM relevant GROUP BY object_id),
            folded AS (
                SELECT r.object_id, coalesce(r.data -> 'fields', '{}'::jsonb) AS data,
                    (r.data ->> 'createdAt')::timestamptz AS created_at,
                    (r.data ->> 'updatedAt')::timestamptz AS updated_at, r.version
                FROM relevant r JOIN counted c USING (object_id)
                WHERE c.n = 1 AND r.type = \(InstallationEvent.created)
                UNION ALL
                SELECT object_id, (s).data, (s).created_at, (s).updated_at, (s).version
                FROM (SELECT r.object_id,
                          installation_replay_fold(r.type, r.data, r.version ORDER BY r.transaction_id, r.position) AS s
                      FROM relevant r JOIN counted c USING (object_id)
                      WHERE c.n > 1
                      GROUP BY r.object_id) f
                WHERE (s).data IS NOT NULL
            ),
            inserted AS (
                INSERT INTO \(unsafeRaw: scratch.installations) (app_id, object_id, data, created_at, updated_at, version)
                SELECT \(appId), object_id, data, created_at, updated_at, version FROM folded
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM relevant) AS events, (SELECT count(*) FROM inserted) AS rows
            """)
        return try row[0].int("events")
    }

    /// Every event through `InstallationProjection.apply`, as the live table was built (optionally one
    /// installation's stream only, which is what `explain` needs); returns the number of events folded.
    func perEvent(into scratch: ReplayScratch, objectId: String? = nil, on conn: PGConnection) async throws -> Int {
        let projection = InstallationProjection()
        let stream = objectId.map(InstallationEvent.stream)
        return try await forEachEvent(types: Self.eventTypes, stream: stream, on: conn) { event in
            try await projection.apply(event.projected, on: conn, schema: scratch.schema)
        }
    }

    /// The app's own stream through `AppProjection.apply`, so the settings (installation_ttl_days) are those
    /// in force at the instant.
    func appSettings(into scratch: ReplayScratch, on conn: PGConnection) async throws {
        let projection = AppProjection()
        _ = try await forEachEvent(
            types: [AppEvent.created, AppEvent.settingsChanged], stream: AppEvent.stream, on: conn
        ) { event in
            try await projection.apply(event.projected, on: conn, schema: scratch.schema)
        }
    }

    /// Reads the matching events in log order, a page at a time so memory stays flat.
    private func forEachEvent(
        types: [String], stream: String?, on conn: PGConnection,
        _ body: (RecordedEvent) async throws -> Void
    ) async throws -> Int {
        let streamFilter: PGQuery = if let stream { "AND stream = \(stream)" } else { "" }
        var checkpoint = Checkpoint.start
        var count = 0
        while true {
            let rows = try await conn.query(
                """
                SELECT position, transaction_id::text AS xid, app_id, stream, version, type, data, metadata, recorded_at
                FROM events
                WHERE app_id = \(appId) AND type = ANY(\(types)::text[]) \(streamFilter)
                  AND event_time(data, recorded_at) <= \(at)::timestamptz
                  AND (transaction_id, position) > (\(String(checkpoint.transactionId))::xid8, \(checkpoint.position))
                ORDER BY transaction_id, position
                LIMIT 2000
                """)
            let events = try rows.map(EventStore.decode)
            guard let last = events.last else { return count }
            for event in events { try await body(event) }
            count += events.count
            checkpoint = last.checkpoint
        }
    }
}
