import Postgres
import PushCore

/// Opens (SPEC §9): per push (default), per notification id, or per day and platform. The html page
/// always charts the daily open rate, whatever the rows are.
enum OpensReport {
    static let pushColumns = [
        "objectId", "notificationId", "createdAt", "devices", "successes", "opens", "uniqueOpens", "openRate",
        "medianSecondsToOpen", "timeToOpen", "vendorSuccesses",
    ]
    static let notificationColumns = [
        "notificationId", "pushes", "firstCreatedAt", "devices", "successes", "opens", "uniqueOpens", "openRate",
        "medianSecondsToOpen", "timeToOpen", "vendorSuccesses",
    ]
    static let dayColumns = ["day", "platform", "successes", "opens", "uniqueOpens", "openRate", "appOpens"]
    /// Unique opens by seconds from delivery to first open; `unknown` holds opens without a delivery time.
    static let buckets = ["under1m", "under10m", "under1h", "under6h", "under24h", "later", "unknown"]

    static func build(_ context: ReportContext, grouping: OpensGrouping) async throws -> ReportDocument {
        let daily = try await dailyTable(context)
        let table: ReportTable
        let tableTitle: String
        switch grouping {
        case .push:
            table = try await pushTable(
                context, grouping: .push, columns: pushColumns,
                lead: ["object_id", "notification_id", "created_at"])
            tableTitle = "Opens per push"
        case .notification:
            table = try await pushTable(
                context, grouping: .notification, columns: notificationColumns,
                lead: ["notification_id", "pushes", "created_at"])
            tableTitle = "Opens per notification id"
        case .day:
            table = daily
            tableTitle = "Opens per day and platform"
        }
        return ReportDocument(
            title: "Opens — \(context.appId)", subtitle: context.subtitle, tableTitle: tableTitle, table: table,
            charts: [openRateChart(daily)])
    }

    /// Rows of `opens.sql` per push or per notification id: three leading columns, then the same figures.
    static func pushTable(
        _ context: ReportContext, grouping: OpensGrouping, columns: [String], lead: [String]
    )
        async throws -> ReportTable
    {
        let binds = context.binds + [grouping.rawValue]
        let rows = try await ReportDefinitions.run("opens", binds: binds, on: context.pool)
        let table = try rows.map { row in
            let leading: [ReportValue] = lead.map { name in
                guard let text = row[name] else { return .null }
                return name == "pushes" ? .int(Int64(text) ?? 0) : .text(text)
            }
            let successes = try row.int64("successes"), unique = try row.int64("unique_opens")
            var spread: [String: JSON] = [:]
            for bucket in buckets { spread[bucket] = .int(try row.int64(bucket)) }
            let median: ReportValue = row["median_seconds_to_open"].flatMap(Double.init).map { .number($0) } ?? .null
            return leading + [
                .int(try row.int64("devices")), .int(successes), .int(try row.int64("opens")), .int(unique),
                ReportValue.rate(unique, of: successes), median, .object(.object(spread)),
                .object(try JSON.parse(row["vendor_successes"] ?? "{}")),
            ]
        }
        return ReportTable(columns: columns, rows: table)
    }

    static func dailyTable(_ context: ReportContext) async throws -> ReportTable {
        let rows = try await ReportDefinitions.run("opens_daily", binds: context.binds, on: context.pool)
        let table = try rows.map { row -> [ReportValue] in
            let successes = try row.int64("successes"), unique = try row.int64("unique_opens")
            return [
                .text(try row.string("day")), .text(try row.string("platform")), .int(successes),
                .int(try row.int64("opens")), .int(unique), ReportValue.rate(unique, of: successes),
                .int(try row.int64("app_opens")),
            ]
        }
        return ReportTable(columns: dayColumns, rows: table)
    }

    /// Open rate per day, for all platforms together and for each platform, in percent.
    static func openRateChart(_ daily: ReportTable) -> SVGChart {
        let days = Array(Set(daily.column("day").map(\.text))).sorted()
        let platforms = Array(Set(daily.column("platform").map(\.text))).sorted()
        var sums: [String: [String: (successes: Int64, unique: Int64)]] = [:]
        for row in daily.rows {
            let day = row[0].text, platform = row[1].text
            let successes = Int64(row[2].text) ?? 0, unique = Int64(row[4].text) ?? 0
            for key in ["all", platform] {
                let old = sums[key, default: [:]][day] ?? (0, 0)
                sums[key, default: [:]][day] = (old.successes + successes, old.unique + unique)
            }
        }
        let series = (["all"] + platforms).map { key in
            let rates = days.map { day -> Double in
                let s = sums[key]?[day] ?? (0, 0)
                guard s.successes > 0 else { return 0 }
                return ReportValue.rounded(Double(s.unique) * 100 / Double(s.successes), decimals: 2)
            }
            let labels = rates.map { ReportValue.fixed($0, decimals: 2) + "%" }
            return SVGChart.Series(name: key, values: rates, labels: labels)
        }
        return SVGChart(
            title: "Open rate per day in % (unique push opens / successes)", kind: .lines, categories: days,
            series: series)
    }
}
