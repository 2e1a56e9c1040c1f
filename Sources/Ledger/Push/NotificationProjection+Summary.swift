import Postgres
import PushCore

/// In a rebuild, the push opens that `PushStatsProjection` summarises (`SummarizedEvents.pushOpens`) are counted per
/// push here too: `applyAll` only adds them to the push's row, which a push's own events create before any open
/// names it and which keeps no other trace of them, so adding the total after the page pass leaves what adding
/// them one by one leaves (a row purged meanwhile is gone either way).
extension NotificationProjection: LogSummarizingProjection {
    public var summarizedEvents: SummarizedEvents { .pushOpens }
    /// The counts go into rows that other events write too.
    public var summaryTables: [String] { [] }

    public func summarize(apps: [String], on reader: PGConnection) async throws {
        try await reader.query(
            """
            CREATE TEMPORARY TABLE rebuild_notification_opens ON COMMIT DROP AS
            SELECT app_id, data ->> 'pushId' AS p, count(*) AS opens
            FROM events WHERE app_id = ANY(\(apps)::text[]) AND \(summarizedEvents.sql)
            GROUP BY 1, 2
            """)
    }

    public func writeSummary(from reader: PGConnection, into schema: String, on conn: PGConnection) async throws {
        let rows = try await reader.query("SELECT app_id, p, opens FROM rebuild_notification_opens")
        let apps = try rows.map { try $0.string("app_id") }
        let pushIds = try rows.map { try $0.string("p") }
        let opens = try rows.map { try $0.string("opens") }
        try await conn.query(
            """
            UPDATE \(unsafeRaw: schema).notifications n SET opens = n.opens + c.opens
            FROM unnest(\(apps)::text[], \(pushIds)::text[], \(opens)::bigint[]) AS c(app_id, push_id, opens)
            WHERE n.app_id = c.app_id AND n.object_id = c.push_id
            """)
    }
}
