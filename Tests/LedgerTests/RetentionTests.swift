import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

@Suite("Retention job", .requiresPostgreSQL)
struct RetentionTests {
    @Test("91 days later only stale installations expire, 8 days later only old records go; a rerun changes nothing")
    func retention() async throws {
        let db = try await TestDatabase.make()
        let ledger = db.ledger
        let app = try await ledger.apps.create(name: "r", appId: "ret")
        let meta = EventMetadata(keyKind: "master")
        let t0 = LeanDate.parse("2026-01-01T00:00:00Z")!
        func day(_ n: Double) -> Date { t0.addingTimeInterval(n * 86400) }
        var ids: [String] = []
        for i in 0..<6 {
            ids.append(
                try await ledger.installations.save(
                    appId: app.appId,
                    body: [
                        "deviceType": "ios", "deviceToken": .string(String(format: "%064x", i + 1)), "channels": ["c"],
                    ], metadata: meta, now: day(0)
                ).objectId)
        }
        // Pushes on day 0 (done), day 2 (done) and one scheduled for day 200 that expires on day 30.
        func push(_ body: JSON, at now: Date) async throws -> String {
            let id = try await SimulatedPushes.push(body, app: app, at: now, ledger, metadata: meta)
            try await SimulatedPushes.deliverPending(at: now, ledger)
            return id
        }
        let old = try await push(["channels": ["c"], "data": ["alert": "a"]], at: day(0))
        let recent = try await push(["channels": ["c"], "data": ["alert": "b"]], at: day(2))
        let scheduled = try await push(
            [
                "channels": ["c"], "data": ["alert": "c"],
                "push_time": .string(LeanDate.format(day(20))), "expiration_time": .string(LeanDate.format(day(30))),
            ], at: day(2))

        // Three are touched later: an update on day 2, an open on day 5, a badge reset on day 3.
        _ = try await ledger.installations.update(
            appId: app.appId, objectId: ids[0], body: ["channels": ["d"]], metadata: meta, now: day(2))
        _ = try await ledger.opens.record(
            appId: app.appId, AppOpen(installation: .objectId(ids[1]), kind: .app),
            metadata: meta, now: day(5))
        _ = try await ledger.installations.update(
            appId: app.appId, objectId: ids[2], body: ["badge": 0], metadata: meta, now: day(3))

        // 8 days after day 0: only the day-0 push record goes; the scheduled one and day 2's stay.
        let first = try await RetentionJob(store: ledger.events).run(now: day(8))
        #expect(first.purgedPushes == 1)
        #expect(first.expiredInstallations == 0)
        #expect(first.closedDays == 2)
        #expect(try await ledger.pushQueries.get(appId: app.appId, pushId: old) == nil)
        #expect(try await ledger.pushQueries.get(appId: app.appId, pushId: recent) != nil)
        #expect(try await ledger.pushQueries.get(appId: app.appId, pushId: scheduled) != nil)
        // Its aggregates stay for the reports.
        let kept = try await ledger.pool.query("SELECT devices, successes FROM push_stats WHERE push_id = \(old)")
        #expect(kept.map { [$0["devices"], $0["successes"]] } == [["6", "6"]])

        // 91 days after day 0: the three untouched installations expire; day 2's push record goes; the
        // scheduled push expired on day 30 and is dropped (its record goes too, being finished).
        let second = try await RetentionJob(store: ledger.events).run(now: day(91))
        #expect(second.expiredInstallations == 3)
        #expect(second.expiredScheduled == 1)
        #expect(second.purgedPushes == 2)
        #expect(second.closedDays == 0)
        let remaining = Set(
            try await ledger.pool.query("SELECT object_id FROM installations WHERE app_id = 'ret'")
                .map { try $0.string("object_id") })
        #expect(remaining == Set(ids[0..<3]))
        let expired = try await ledger.pool.query(
            "SELECT count(*) AS n FROM events WHERE app_id = 'ret' AND type = \(InstallationEvent.expired)")[0].int("n")
        #expect(expired == 3)

        // Idempotent: nothing left to do, nothing appended.
        let count = try await db.eventCount()
        let third = try await RetentionJob(store: ledger.events).run(now: day(91))
        #expect(third == RetentionJob.Report())
        #expect(try await db.eventCount() == count)
        let report = try await ledger.rebuilder().run(verify: true)
        #expect(report.differences.isEmpty, "\(report.differences)")
    }

    @Test("the retention command runs the job at --now and prints what it did")
    func command() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "r", appId: "retcmd")
        _ = try await db.ledger.installations.save(
            appId: app.appId,
            body: [
                "deviceType": "android", "installationId": "x1", "channels": ["c"],
            ], metadata: EventMetadata(keyKind: "client"), now: LeanDate.parse("2026-01-01T00:00:00Z")!)
        let run = try ServerProcess.command(["retention", "run", "--now", "2026-04-02T00:00:00Z"], databaseURL: db.url)
        #expect(run.status == 0)
        let out = try JSON.parse(Array(run.output.split(separator: "\n").last!.utf8))
        #expect(out["expiredInstallations"] == 1)
        #expect(out["closedDays"] == 0)
        let again = try ServerProcess.command(
            ["retention", "run", "--now", "2026-04-02T00:00:00Z"], databaseURL: db.url)
        #expect(try JSON.parse(Array(again.output.split(separator: "\n").last!.utf8))["expiredInstallations"] == 0)
        let bad = try ServerProcess.command(["retention", "run", "--now", "soon"], databaseURL: db.url)
        #expect(bad.status != 0)
        // The log-retention step, asked for: the log here is a day old, so nothing is dropped.
        let trim = try ServerProcess.command(["retention", "run", "--log-retention-days", "90"], databaseURL: db.url)
        #expect(trim.status == 0)
        let trimmed = try JSON.parse(Array(trim.output.split(separator: "\n").last!.utf8))
        #expect(trimmed["droppedLogPartitions"] == 0)
        let noWindow = try ServerProcess.command(
            ["retention", "run", "--log-retention-days", "0"], databaseURL: db.url)
        #expect(noWindow.status == 64)
    }

    @Test("two retention runs at once do the work once between them")
    func concurrentRuns() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "r", appId: "retpar")
        let t0 = LeanDate.parse("2026-01-01T00:00:00Z")!
        for i in 0..<1200 {
            _ = try await db.ledger.installations.save(
                appId: app.appId,
                body: [
                    "deviceType": "ios", "deviceToken": .string(String(format: "%064x", i + 1)),
                ], metadata: EventMetadata(keyKind: "client"), now: t0)
        }
        let now = t0.addingTimeInterval(100 * 86400)
        async let a = RetentionJob(store: db.ledger.events, pageSize: 100).run(now: now)
        async let b = RetentionJob(store: db.ledger.events, pageSize: 100).run(now: now)
        let (ra, rb) = try await (a, b)
        #expect(ra.expiredInstallations + rb.expiredInstallations == 1200)
        let expired = try await db.ledger.pool.query(
            "SELECT count(*) AS n FROM events WHERE app_id = 'retpar' AND type = \(InstallationEvent.expired)")[0].int(
                "n")
        #expect(expired == 1200)
        #expect(try await db.ledger.pool.query("SELECT count(*) AS n FROM installations")[0].int("n") == 0)
    }

    @Test("a push stopped at the quota keeps its record while its last batch is still to be sent")
    func stoppedPushWithPendingBatch() async throws {
        let db = try await TestDatabase.make()
        let ledger = db.ledger
        _ = try await ledger.apps.create(name: "q", appId: "retq")
        let app = try await ledger.apps.set(appId: "retq", [("daily_push_quota", "1")])
        let t0 = LeanDate.parse("2026-01-01T00:00:00Z")!
        for i in 0..<2 {
            _ = try await ledger.installations.save(
                appId: app.appId,
                body: [
                    "deviceType": "ios", "deviceToken": .string(String(format: "%064x", i + 1)),
                ], metadata: EventMetadata(keyKind: "client"), now: t0)
        }
        let id = try await SimulatedPushes.push(["data": ["alert": "x"]], app: app, at: t0, ledger)
        #expect(
            try await ledger.pushQueries.get(appId: app.appId, pushId: id)?.json["status"]?.stringValue
                == PushEvent.Status.quotaReached(1))
        let later = t0.addingTimeInterval(8 * 86400)
        #expect(try await RetentionJob(store: ledger.events).run(now: later).purgedPushes == 0)
        try await SimulatedPushes.deliverPending(at: later, ledger)
        #expect(try await RetentionJob(store: ledger.events).run(now: later).purgedPushes == 1)
    }
}
