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
            try await reader.query(
                """
                DECLARE log_scan NO SCROLL CURSOR FOR
                SELECT \(Self.projectedColumns)
                FROM events WHERE type <> ALL(\(skippedTypes)::text[]) \(excluded)
                ORDER BY transaction_id, position
                """)
            let fetch: @Sendable () async throws -> [ProjectedEvent] = {
                try await reader.query("FETCH \(unsafeRaw: String(pageSize)) FROM log_scan").map(Self.projected)
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
    /// What a projection reads of an event (`ProjectedEvent`). A PushTargeted's targets (most of a log's bytes:
    /// every device of every push) travel as their number: the projections only count them
    /// (`TargetReading.counted`).
    static let projectedColumns: PGQuery = """
        app_id, stream, version, type,
            CASE WHEN type = \(PushEvent.targeted) AND jsonb_typeof(data -> 'targets') = 'array'
                 THEN (data - 'targets')
                      || jsonb_build_object(\(PushTargeted.targetCountKey)::text, jsonb_array_length(data -> 'targets'))
                 ELSE data END AS data
        """

    static func projected(_ row: PGRow) throws -> ProjectedEvent {
        try ProjectedEvent(
            appId: try row.string("app_id"), stream: try row.string("stream"), version: try row.int("version"),
            type: try row.string("type"), data: try row.json("data"))
    }

    /// One app's events after `checkpoint` that `conn`'s transaction sees, except those of `skippedTypes`, in log
    /// order, as projections read them, with the checkpoint of the last one: a page of the rebuild that goes app
    /// by app (on Citus, where the statement runs on the app's worker, in the transaction's snapshot there).
    func projectedPage(
        appId: String, after checkpoint: Checkpoint, skipping skippedTypes: [String], limit: Int,
        on conn: PGConnection
    ) async throws -> (events: [ProjectedEvent], last: Checkpoint?) {
        let rows = try await conn.query(
            """
            SELECT \(Self.projectedColumns), transaction_id::text AS xid, position
            FROM events
            WHERE app_id = \(appId) AND type <> ALL(\(skippedTypes)::text[])
              AND (transaction_id, position) > (\(String(checkpoint.transactionId))::xid8, \(checkpoint.position))
            ORDER BY transaction_id, position
            LIMIT \(limit)
            """)
        let last = try rows.last.map {
            Checkpoint(transactionId: UInt64(try $0.string("xid")) ?? 0, position: try $0.int64("position"))
        }
        return (try rows.map(Self.projected), last)
    }

    /// The apps that have events in the caller's snapshot, from their streams' heads (a row per stream, kept
    /// with every append) rather than the log itself. A statement bound to them can find an app's rare event
    /// types through `events_by_type` instead of scanning every event. (Not a recursive probe of the log's key:
    /// Citus refuses a recursive query that does not name one app.)
    public func appIds(on conn: some PGQuerying) async throws -> [String] {
        try await conn.query("SELECT DISTINCT app_id FROM stream_heads ORDER BY app_id").map { try $0.string("app_id") }
    }
}
