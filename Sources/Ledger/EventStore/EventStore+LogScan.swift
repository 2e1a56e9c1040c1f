import Postgres

extension EventStore {
    /// Every event the caller's snapshot sees, except those of `skippedTypes`, in log order, `pageSize` at a time.
    /// A server-side cursor over one sorted scan: a query per page would walk the global-order index past every
    /// skipped event again. Must run inside a transaction (the cursor lives until its end).
    public func forEachPage(
        skipping skippedTypes: [String], pageSize: Int, on conn: PGConnection,
        _ body: ([RecordedEvent]) async throws -> Void
    ) async throws {
        // The planner costs a cursor for its first rows by default, which picks the index walk; all rows are read.
        try await conn.execute(unsafeScript: "SET LOCAL cursor_tuple_fraction = 1")
        try await conn.query(
            """
            DECLARE log_scan NO SCROLL CURSOR FOR
            SELECT position, transaction_id::text AS xid, app_id, stream, version, type, data, metadata, recorded_at
            FROM events WHERE type <> ALL(\(skippedTypes)::text[])
            ORDER BY transaction_id, position
            """)
        while true {
            let events = try await conn.query("FETCH \(unsafeRaw: String(pageSize)) FROM log_scan").map(Self.decode)
            if events.isEmpty { break }
            try await body(events)
        }
        try await conn.query("CLOSE log_scan")
    }
}
