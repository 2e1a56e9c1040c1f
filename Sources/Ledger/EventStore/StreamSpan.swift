import Postgres

/// Where in time a set of streams' events lie: the earliest and latest `recorded_at` of their rows, kept in
/// `stream_heads` by the append trigger (migration 0017), as PostgreSQL prints them.
///
/// Why: the log has a partition per day, and keeps them all by default. A read by stream alone is planned,
/// and each partition opened and locked, over the whole log before a row is looked at, a cost that grows with
/// every day kept (docs/benchmarks.md, "Stream reads over a long log"); naming the span as constants lets the
/// planner leave out every partition outside it.
/// The bounds travel as text, so they come back exactly as stored (a `Date` would round microseconds), and
/// as untyped parameters cast to `timestamptz`, which makes them typed parameters the plan is made for;
/// a `text` parameter cast in SQL would be a function of it, pruned only after planning.
struct StreamSpan: Sendable {
    let first: String
    let last: String

    /// The span of `streams`' events, or nil when they have none (no head, or only heads whose every row was
    /// dropped before 0017: the append trigger gives a span to every stream it appends to).
    static func of(streams: [String], appId: String, on conn: PGConnection) async throws -> StreamSpan? {
        let row = try await conn.query(
            """
            SELECT min(first_recorded_at)::text AS first_at, max(last_recorded_at)::text AS last_at
            FROM stream_heads WHERE app_id = \(appId) AND stream = ANY(\(streams)::text[])
            """)[0]
        guard let first: String = row["first_at"], let last: String = row["last_at"] else { return nil }
        return StreamSpan(first: first, last: last)
    }

    /// A condition on a row of `events` that holds for every event in the span.
    var condition: PGQuery { "recorded_at BETWEEN \(first)::timestamptz AND \(last)::timestamptz" }
}
