import Postgres

/// What every report query needs: the pool, the app, its time zone and the resolved range.
struct ReportContext: Sendable {
    let pool: PGPool
    let appId: String
    let timezone: String
    let range: ReportRange

    /// `$1` app id, `$2` first day, `$3` last day: the parameters of every file in `reports/` (`opens.sql`
    /// adds its grouping as `$4`).
    var binds: [String?] { [appId, range.first, range.last] }

    var subtitle: String { "\(range.first) to \(range.last) (\(timezone))" }
}
