import Postgres
import PushCore

extension EventStore {
    /// Every event `conn`'s transaction sees, except those of `skippedTypes`, in log order, `pageSize` at a time;
    /// only what a projection reads of each (`ProjectedEvent`), not its metadata, and of a PushTargeted only the
    /// number of its targets. The pages are read on a second
    /// connection of the pool that shares `conn`'s snapshot, one page ahead: while `body` applies a page on `conn`,
    /// the next is fetched and decoded. The read is one server-side cursor over one sorted scan: a query per page
    /// would walk the global-order index past every skipped event again.
    ///
    /// `meanwhile` runs on `conn` while the first page is read (its sort is the scan's longest wait), before
    /// `body` sees any page; it must not change what the scan reads, which it cannot see anyway: the reader's
    /// snapshot is taken first.
    ///
    /// `excluding`: conditions on a row of `events` (`type`, `data`), true or false, whose events are skipped too.
    public func forEachPage(
        skipping skippedTypes: [String], excluding: [PGQuery] = [], pageSize: Int,
        sharingSnapshotOf conn: PGConnection,
        meanwhile: () async throws -> Void = {}, _ body: ([ProjectedEvent]) async throws -> Void
    ) async throws {
        try await withSnapshotReader(sharing: conn) { reader in
            // The planner costs a cursor for its first rows by default, which picks the index walk; all rows
            // are read.
            try await reader.execute(unsafeScript: "SET LOCAL cursor_tuple_fraction = 1")
            let excluded = excluding.reduce(PGQuery(unsafeSQL: "")) { "\($0) AND NOT (\($1))" }
            // A PushTargeted's targets (most of a log's bytes: every device of every push) travel as their
            // number: the projections only count them (`TargetReading.counted`).
            try await reader.query(
                """
                DECLARE log_scan NO SCROLL CURSOR FOR
                SELECT app_id, stream, version, type,
                    CASE WHEN type = \(PushEvent.targeted) AND jsonb_typeof(data -> 'targets') = 'array'
                         THEN (data - 'targets')
                              || jsonb_build_object(\(PushTargeted.targetCountKey)::text, jsonb_array_length(data -> 'targets'))
                         ELSE data END AS data
                FROM events WHERE type <> ALL(\(skippedTypes)::text[]) \(excluded)
                ORDER BY transaction_id, position
                """)
            let fetch: @Sendable () async throws -> [ProjectedEvent] = {
                try await reader.query("FETCH \(unsafeRaw: String(pageSize)) FROM log_scan").map {
                    try ProjectedEvent(
                        appId: try $0.string("app_id"), stream: try $0.string("stream"),
                        version: try $0.int("version"), type: try $0.string("type"), data: try $0.json("data"))
                }
            }
            // `meanwhile` and `body` run on `conn`'s executor (no thread hop per statement); the reads, in tasks on
            // the global executor, go on beside them, and the next page is decoded while this one is applied.
            try await readingAhead(fetch, meanwhile: meanwhile, body)
        }
    }

    /// Runs `body` with another connection of the pool, in a REPEATABLE READ transaction sharing `conn`'s snapshot:
    /// it reads what `conn`'s transaction reads, beside it. Sorts and hashes get 256 MB before they spill to disk
    /// (the log scan's sort holds every page's data).
    ///
    /// `body` runs on `conn`'s executor, as its caller did, not on the reader's: a statement runs inline on the
    /// thread of the executor it is called from, so work meant to go on beside a long statement must run where
    /// that statement does not. Work on the reader beside `conn`'s statements belongs in a child task that prefers
    /// another executor (`globalConcurrentExecutor`): one that inherits `conn`'s waits for `conn`'s statements.
    public func withSnapshotReader<T: Sendable>(
        sharing conn: PGConnection, _ body: (PGConnection) async throws -> T
    ) async throws -> T {
        let snapshot = try await conn.query("SELECT pg_export_snapshot() AS s")[0].string("s")
        return try await pool.withConnection { reader in
            try await reader.transaction(isolation: .repeatableRead) { reader in
                try await reader.execute(
                    unsafeScript: "SET TRANSACTION SNAPSHOT '\(snapshot)'; SET LOCAL work_mem = '256MB'")
                return try await conn.withOwnExecutor { try await body(reader) }
            }
        }
    }
}

extension EventStore {
    /// The apps that have events in the caller's snapshot: one probe of the primary key per app (a loose index
    /// scan), where `SELECT DISTINCT app_id` would read the whole log. A statement bound to them can find an
    /// app's rare event types through `events_by_type` instead of scanning every event.
    public func appIds(on conn: PGConnection) async throws -> [String] {
        try await conn.query(
            """
            WITH RECURSIVE app AS (
                SELECT min(app_id) AS app_id FROM events
                UNION ALL
                SELECT (SELECT min(e.app_id) FROM events e WHERE e.app_id > app.app_id) FROM app
                WHERE app.app_id IS NOT NULL)
            SELECT app_id FROM app WHERE app_id IS NOT NULL
            """
        ).map { try $0.string("app_id") }
    }
}
