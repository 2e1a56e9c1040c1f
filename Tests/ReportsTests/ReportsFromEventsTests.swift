import Foundation
import Postgres
import PushCore
import Reports
import TestEnvironment
import TestSupport
import Testing

/// Issue 18 item 3: the billing and opens reports read projections (`daily_usage`, `push_stats`,
/// `push_opens`) to stay fast; on a generated 90-day history (`scripts/lib/reports-from-events/history.sql`,
/// a new seed each run) they must equal the same figures computed from the raw log by hand-written SQL
/// (`billing.sql`, `opens.sql` beside it — the baseline `scripts/bench-reports` times too).
@Suite("Reports equal the raw log", .requiresPostgreSQL)
struct ReportsFromEventsTests {
    static let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/lib/reports-from-events").standardized

    /// Runs `file` (the generated history, written with psql variables) through psql with `variables`.
    static func psql(_ url: String, file: URL, _ variables: [String: String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments =
            ["psql", url, "-X", "-q", "-v", "ON_ERROR_STOP=1"]
            + variables.sorted { $0.key < $1.key }.flatMap { ["-v", "\($0.key)=\($0.value)"] }
            + ["-f", file.path]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "psql \(file.lastPathComponent) failed")
    }

    /// The hand-written SQL (`$1` app, `$2`/`$3` days) run with its parameters bound; each row as text, NULL
    /// as "" (what `text` makes of a report's absent value).
    static func raw(
        _ db: TestDatabase, _ file: String, app: String, from: String, to: String
    ) async throws
        -> [[String]]
    {
        let sql = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
        let rows = try await db.ledger.pool.query(PGQuery(unsafeSQL: sql, binds: [app, from, to]))
        return rows.map { row in rows.columns.indices.map { row[$0] ?? "" } }
    }

    static func report(_ url: String, _ args: [String]) throws -> [JSON] {
        let run = try ServerProcess.command(["report"] + args + ["--format", "json"], databaseURL: url)
        #expect(run.status == 0, "\(run.output)")
        return try JSON.parse(Array(run.output.utf8)).arrayValue ?? []
    }

    /// The rows that differ, report beside raw, for the failure message.
    static func differences(_ report: [[String]], _ raw: [[String]]) -> String {
        var lines = report.count == raw.count ? [] : ["\(report.count) rows in the report, \(raw.count) from the log"]
        for (a, b) in zip(report, raw) where a != b { lines.append("report \(a)\n   log \(b)") }
        return lines.prefix(8).joined(separator: "\n")
    }

    static func text(_ value: JSON?) -> String {
        switch value {
        case .int(let n): return String(n)
        case .double(let d): return d == d.rounded() ? String(Int64(d)) : String(d)
        case .string(let s): return s
        default: return ""
        }
    }

    @Test("billing and opens over a generated 90-day history equal the hand-written SQL over the raw events")
    func reportsEqualTheRawLog() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "raw", appId: "rawreports")
        try await db.ledger.apps.set(appId: app.appId, [("timezone", "Asia/Shanghai")])
        let seed = Double.random(in: -1...1)
        print("ReportsFromEventsTests seed \(seed)")
        let t0 = "2026-10-30T16:00:00Z"  // local midnight in Shanghai
        try Self.psql(
            db.url, file: Self.dir.appendingPathComponent("history.sql"),
            ["app": app.appId, "t0": t0, "pushes": "60", "seed": String(seed)])
        let rebuilt = try await db.ledger.rebuilder().run(verify: false)
        #expect(rebuilt.events > 500)

        let range = ["--app", app.appId, "--from", "2026-07-01", "--to", "2026-10-31"]
        let billing = try Self.report(db.url, ["billing"] + range)
        let rawBilling = try await Self.raw(db, "billing.sql", app: app.appId, from: "2026-07-01", to: "2026-10-31")
        let billingKeys = ["day", "calls", "peakCallsPerMinute", "pushes", "successes"]
        #expect(billing.count > 30)
        let billingRows = billing.map { row in billingKeys.map { Self.text(row[$0]) } }
        #expect(billingRows == rawBilling, "seed \(seed)\n\(Self.differences(billingRows, rawBilling))")
        #expect(billing.contains { ($0["peakCallsPerMinute"]?.intValue ?? 0) > 1 }, "a minute with several calls")

        let opens = try Self.report(db.url, ["opens"] + range)
        let rawOpens = try await Self.raw(db, "opens.sql", app: app.appId, from: "2026-07-01", to: "2026-10-31")
        let opensKeys = ["objectId", "devices", "successes", "opens", "uniqueOpens", "medianSecondsToOpen"]
        #expect(opens.count == 60)
        let opensRows = opens.map { row in opensKeys.map { Self.text(row[$0]) } }
        #expect(opensRows == rawOpens, "seed \(seed)\n\(Self.differences(opensRows, rawOpens))")
        #expect(opens.contains { ($0["opens"]?.intValue ?? 0) > ($0["uniqueOpens"]?.intValue ?? 0) }, "repeat opens")
    }
}
