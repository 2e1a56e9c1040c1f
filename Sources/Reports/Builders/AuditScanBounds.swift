import Postgres

/// Where in the log the audit report has to look: `audit.sql`'s `$4` and `$5`, as PostgreSQL prints them.
///
/// Why: the audit picks events by their own time (`event_time`), and the log is partitioned by
/// `recorded_at`, a partition a day, all kept by default. Unbounded, its scan and its two lookups in push
/// streams were planned over every partition, a cost growing with every day kept (docs/benchmarks.md, "The
/// audit over a long log"). The bounds are found first and sent as untyped
/// parameters cast to `timestamptz`, so the report is planned for their values and leaves out, while
/// planning, every partition before them (as `StreamSpan` does for stream reads).
///
/// Each statement sees its own snapshot: a row appended meanwhile with a `recorded_at` from before the bounds
/// (an import into the past, in flight) can be missed, as a report started a moment earlier would miss it.
struct AuditScanBounds: Sendable {
    /// No event whose time is on or after the range's first day (in the app's time zone) was recorded
    /// before this: a day before that instant, or earlier when `event_time_outliers` (migration 0018)
    /// lists rows of such a time recorded earlier still.
    let scanFrom: String
    /// No row of the stream of a push request recorded since `scanFrom` was recorded before this, so the
    /// lookups of a request's result in its stream can leave out every partition before it.
    let lookupsFrom: String

    static func find(_ context: ReportContext) async throws -> AuditScanBounds {
        // The range's first instant in the app's time zone, as `audit.sql` compares its days.
        let scanFrom = try await context.pool.query(
            """
            SELECT least(f.at - event_time_outlier_margin(),
                         (SELECT min(o.earliest_recorded_at) FROM event_time_outliers o
                          WHERE o.app_id = \(context.appId) AND o.latest_event_time >= f.at))::text AS scan_from
            FROM (SELECT \(context.range.first)::date::timestamp AT TIME ZONE \(context.timezone) AS at) f
            """
        )[0].string("scan_from")
        // A stream's span (`stream_heads`, migration 0017) holds every row of it, whatever the clocks did.
        let lookupsFrom = try await context.pool.query(
            """
            SELECT least(\(scanFrom)::timestamptz, min(h.first_recorded_at))::text AS lookups_from
            FROM events e JOIN stream_heads h ON h.app_id = e.app_id AND h.stream = e.stream
            WHERE e.app_id = \(context.appId) AND e.type = 'PushRequested'
              AND e.recorded_at >= \(scanFrom)::timestamptz
            """
        )[0].string("lookups_from")
        return AuditScanBounds(scanFrom: scanFrom, lookupsFrom: lookupsFrom)
    }
}
