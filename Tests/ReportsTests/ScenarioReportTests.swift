import Foundation
import PushCore
import Reports
import TestEnvironment
import TestSupport
import Testing

/// The acceptance scenario of issue 4: the scripted two-day history (`UsageScenario`) goes through the
/// real ledger (events → projections), and the reports `pushledger report` prints carry exactly the
/// figures derived by hand in the scenario's comments — in json, in csv, and in html rendered by Chromium.
@Suite("Reports over the scripted scenario", .requiresPostgreSQL, .serialized)
struct ScenarioReportTests {
    static func report(_ db: TestDatabase, _ args: [String]) throws -> String {
        let run = try ServerProcess.command(
            ["report"] + args + [
                "--app", UsageScenario.appId, "--from", UsageScenario.day1, "--to", UsageScenario.day2,
            ],
            databaseURL: db.url)
        #expect(run.status == 0, "\(run.output)")
        return run.output
    }

    static func json(_ db: TestDatabase, _ args: [String]) throws -> [JSON] {
        try JSON.parse(Array(try report(db, args + ["--format", "json"]).utf8)).arrayValue ?? []
    }

    static func csvLines(_ db: TestDatabase, _ args: [String]) throws -> [String] {
        try report(db, args + ["--format", "csv"]).split(separator: "\r\n").map(String.init)
    }

    @Test("billing: calls, peak minute, devices and successes per local day, priced, with totals")
    func billing() async throws {
        let db = try await TestDatabase.make()
        _ = try await UsageScenario.build(db.ledger)
        let rows = try Self.json(db, ["billing"])
        let keys = ["day", "calls", "peakCallsPerMinute", "pushes", "successes", "rateCharge", "pushCharge", "charge"]
        #expect(
            rows.map { r in keys.map { r[$0] ?? .null } } == [
                ["2026-10-01", 5, 3, 8, 7, 0, 0, 0],
                ["2026-10-02", 1, 1, 1, 1, 0, 0, 0],
            ])
        #expect(
            try Self.csvLines(db, ["billing"]) == [
                "day,calls,peakCallsPerMinute,pushes,successes,rateCharge,pushCharge,charge,closed",
                "2026-10-01,5,3,8,7,0.00,0.00,0.00,false",
                "2026-10-02,1,1,1,1,0.00,0.00,0.00,false",
                "total,6,3,9,8,0.00,0.00,0.00,",
            ])
        // After the retention job closes both days, billing says they are final.
        _ = try await RetentionJobRunner.run(db, now: UsageScenario.day2(3 * 86400))
        #expect(try Self.json(db, ["billing"]).map { $0["closed"] } == [true, true])
    }

    @Test("opens: per push (unique opens / successes, median time to open) and per day and platform")
    func opens() async throws {
        let db = try await TestDatabase.make()
        let s = try await UsageScenario.build(db.ledger)
        let rows = try Self.json(db, ["opens"])
        var byPush: [String: JSON] = [:]
        for r in rows { byPush[r["objectId"]?.stringValue ?? ""] = r }
        let keys = ["devices", "successes", "opens", "uniqueOpens", "openRate", "medianSecondsToOpen"]
        #expect(keys.map { byPush[s.p1]?[$0] ?? .null } == [6, 5, 4, 3, 0.6, 3600])
        #expect(keys.map { byPush[s.p5]?[$0] ?? .null } == [2, 2, 0, 0, 0, .null])
        #expect(keys.map { byPush[s.p6]?[$0] ?? .null } == [1, 1, 1, 1, 1, 300])
        #expect(byPush[s.p1]?["timeToOpen"]?["under1h"] == 1)  // i1 after 600 s
        #expect(byPush[s.p1]?["timeToOpen"]?["under6h"] == 2)  // i2 after 3600 s, a1 after 7200 s
        #expect(rows.count == 6)  // P1, the three empty calls, P5, P6
        let csv = try Self.csvLines(db, ["opens"])
        #expect(csv.contains { $0.hasPrefix("\(s.p1),,2026-10-01T03:00:00.000Z,6,5,4,3,0.6000,3600,") })
        #expect(csv.contains { $0.hasPrefix("\(s.p6),,2026-10-02T03:01:00.000Z,1,1,1,1,1.0000,300,") })

        let daily = try Self.json(db, ["opens", "--by", "day"])
        let dayKeys = ["day", "platform", "successes", "opens", "uniqueOpens", "openRate", "appOpens"]
        #expect(
            daily.map { r in dayKeys.map { r[$0] ?? .null } } == [
                ["2026-10-01", "android", 3, 1, 1, 0.3333, 1],
                ["2026-10-01", "ios", 4, 3, 2, 0.5, 1],
                ["2026-10-02", "ios", 1, 1, 1, 1, 1],
            ])
        #expect(try Self.csvLines(db, ["opens", "--by", "day"]).count == 4)
    }

    @Test("audit: who did what from where with what result, refusals included, no keys")
    func audit() async throws {
        let db = try await TestDatabase.make()
        let s = try await UsageScenario.build(db.ledger)
        let rows = try Self.json(db, ["audit"])
        let summary = rows.map { r in
            [
                r["action"]?.stringValue ?? "", r["keyKind"]?.stringValue ?? "", r["address"]?.stringValue ?? "-",
                r["target"]?.stringValue ?? "", r["result"]?.stringValue ?? "",
            ].joined(separator: " ")
        }
        let i1 = "installation:\(s.installations["i1"]!)"
        #expect(summary.filter { $0.hasPrefix("InstallationCreated client 10.0.0.2") }.count == 9)
        #expect(
            Array(summary.dropFirst(9)) == [
                "PushRequested master 10.0.0.1 push:\(s.p1) done",
                "PushRequested master 10.0.0.1 push:\(rows[10]["target"]?.stringValue?.dropFirst(5) ?? "") done",
                "PushRequested master 10.0.0.1 push:\(rows[11]["target"]?.stringValue?.dropFirst(5) ?? "") done",
                "PushRequested master 10.0.0.1 push:\(rows[12]["target"]?.stringValue?.dropFirst(5) ?? "") done",
                "PushRateLimited master 10.0.0.1 limits refused",
                "PushRequested master 10.0.0.1 push:\(s.p5) \(PushEvent.Status.quotaReached(8))",
                "PushQuotaReached system - push:\(s.p5) stopped",
                "PushQuotaRefused master 10.0.0.1 limits refused",
                "PushRequested master 10.0.0.1 push:\(s.p6) done",
                "BadgeReset client 10.0.0.2 \(i1) ok",
            ])
        #expect(rows[9]["detail"]?["where"] == ["channels": ["$in": ["news"]]])
        #expect(rows[9]["userAgent"] == "ops-script/1.0")
        #expect(rows[13]["detail"] == ["bannedUntil": "2026-10-01T06:01:40.000Z", "calls": 4, "limit": 3])
        // The app's creation (outside this range) is audited without its keys.
        let all = try ServerProcess.command(
            [
                "report", "audit", "--app", UsageScenario.appId, "--from", "2020-01-01", "--to", "2099-12-31",
                "--format", "csv",
            ],
            databaseURL: db.url
        ).output
        #expect(all.contains("AppCreated"))
        #expect(!all.contains("scenario-master") && !all.contains("scenario-key"))
    }

    @Test("the html reports of the scenario render in headless Chromium with their figures")
    func html() async throws {
        try await HeavyTests.exclusive {
            let chromium = try #require(Chromium.path ?? (Chromium.required ? nil : "skip"))
            guard chromium != "skip" else { return }
            let db = try await TestDatabase.make()
            let s = try await UsageScenario.build(db.ledger)
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scenario-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            for (name, figures) in [
                ("billing", ["2026-10-01", "2026-10-02", "<svg"]),
                ("opens", [s.p1, "0.6000", "<svg"]),
                ("audit", ["PushRateLimited", "PushQuotaRefused", "ops-script/1.0"]),
            ] {
                let file = dir.appendingPathComponent("\(name).html")
                _ = try Self.report(db, [name, "--format", "html", "--out", file.path])
                let dom = try Chromium.dumpDOM(file, chromium: chromium, profile: dir)
                for figure in figures { #expect(dom.contains(figure), "\(name): \(figure) missing") }
            }
        }
    }
}

/// The retention job through its command, as an operator would close the days.
enum RetentionJobRunner {
    static func run(_ db: TestDatabase, now: Date) async throws -> String {
        let run = try ServerProcess.command(["retention", "run", "--now", LeanDate.format(now)], databaseURL: db.url)
        #expect(run.status == 0, "\(run.output)")
        return run.output
    }
}
