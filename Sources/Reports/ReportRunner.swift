import Postgres
import PushCore

/// What to report on: the report, the app and the days (`YYYY-MM-DD`, optional), and for `opens` the rows.
public struct ReportRequest: Sendable {
    public var name: ReportName
    public var appId: String
    public var from: String?
    public var to: String?
    public var grouping: OpensGrouping?

    public init(
        name: ReportName, appId: String, from: String? = nil, to: String? = nil, grouping: OpensGrouping? = nil
    ) {
        self.name = name
        self.appId = appId
        self.from = from
        self.to = to
        self.grouping = grouping
    }
}

/// Runs the reports of `reports/` for the CLI and the REST API. Reads projections and the log; never writes.
public struct ReportRunner: Sendable {
    let pool: PGPool

    public init(pool: PGPool) { self.pool = pool }

    public func run(_ request: ReportRequest) async throws -> ReportDocument {
        if request.grouping != nil && request.name != .opens {
            throw LeanError.invalidParameter("Grouping (by) applies to the opens report only.")
        }
        // Today and the day boundaries are the app's, and only PostgreSQL knows its time zone names.
        let rows = try await pool.query(
            """
            SELECT coalesce(settings ->> 'timezone', 'UTC') AS tz,
                   to_char((now() AT TIME ZONE coalesce(settings ->> 'timezone', 'UTC'))::date, 'YYYY-MM-DD') AS today
            FROM apps WHERE app_id = \(request.appId)
            """)
        guard let app = rows.first else { throw LeanError.notFound("No app with id \(request.appId).") }
        let range = try ReportRange.resolve(from: request.from, to: request.to, today: try app.string("today"))
        let context = ReportContext(pool: pool, appId: request.appId, timezone: try app.string("tz"), range: range)
        switch request.name {
        case .billing: return try await BillingReport.build(context)
        case .opens: return try await OpensReport.build(context, grouping: request.grouping ?? .push)
        case .audit: return try await AuditReport.build(context)
        }
    }
}
