import Foundation
import Ledger
import PushCore
import Reports
import TestEnvironment
import TestSupport
import Testing

/// The audit over a log with many earlier days: it plans over the days its range can touch, not over every
/// day partition the log keeps, and still finds an event recorded long before the time it carries.
@Suite("Audit report over a long log", .requiresPostgreSQL)
struct AuditLongLogTests {
    /// Makes the day partitions `daysAgo` days before today (UTC) and returns their names.
    static func partitions(_ f: ReportFixture, daysAgo: [Int]) async throws -> [String] {
        try await f.db.ledger.pool.query(
            """
            SELECT pushledger_event_partition(current_date - d::int) AS name
            FROM unnest(\(daysAgo.map(String.init))::text[]) d
            """
        ).map { try $0.string("name") }
    }

    /// Action, target and result of each row of the audit for the default range (the last 30 days), run while
    /// `days` are locked (it fails if it waits for them).
    static func actions(_ f: ReportFixture, locking days: [String]) async throws -> [[String]] {
        let holder = try await LockedPartitions.hold(days, in: f.db)
        let text = try await LockedPartitions.completes(holding: holder) {
            try await f.run(.audit, format: .json)
        }
        try await holder.query("ROLLBACK")
        await holder.close()
        return (try JSON.parse(text).arrayValue ?? []).map {
            [$0["action"]?.stringValue ?? "", $0["target"]?.stringValue ?? "", $0["result"]?.stringValue ?? ""]
        }
    }

    @Test("the audit of the last 30 days leaves the days before them out, and reads push results as before")
    func leavesEarlierDaysOut() async throws {
        let f = try await ReportFixture.make()
        let (cancelled, queued) = try await AuditReportTests.history(f)
        let days = try await Self.partitions(f, daysAgo: [400, 100, 40])
        // The control: a scan of the app's events with no time bound waits for the locked days.
        let holder = try await LockedPartitions.hold(days, in: f.db)
        #expect(
            try await LockedPartitions.failure(of: "SELECT count(*) AS n FROM events WHERE app_id = 'rep'", in: f.db)
                == "55P03")
        try await holder.query("ROLLBACK")
        await holder.close()

        // As `actionsInLogOrderWithTheirResults` finds them with no day locked.
        #expect(
            try await Self.actions(f, locking: days) == [
                ["AppCreated", "app", "ok"], ["AppSettingsChanged", "app", "ok"],
                ["InstallationCreated", try await Self.installationStream(f), "ok"],
                ["InstallationUpdated", try await Self.installationStream(f), "ok"],
                ["PushRequested", "push:" + cancelled, "cancelled"],
                ["PushCancelled", "push:" + cancelled, "cancelled"],
                ["NotificationDeleted", "push:" + cancelled, "deleted"],
                ["PushRequested", "push:" + queued, "in-queue"],
                ["PushQuotaRefused", "limits", "refused"],
            ])
    }

    @Test("an event recorded long before the time it carries is audited on its time, from its own day")
    func findsAnEventRecordedLongBefore() async throws {
        let f = try await ReportFixture.make()
        let days = try await Self.partitions(f, daysAgo: [400, 200])
        // A push request imported with its own time (now), recorded 200 days ago.
        try await f.db.ledger.pool.query(
            """
            INSERT INTO events (app_id, stream, version, type, data, metadata, recorded_at)
            VALUES ('rep', 'push:imported', 1, 'PushRequested',
                    jsonb_build_object('objectId', 'imported', 'at', \(LeanDate.format(Date()))::text,
                                       'status', 'done', 'request', '{"data": {"alert": "hi"}}'::jsonb),
                    '{"keyKind": "master"}', ((current_date - 200) + time '12:00') AT TIME ZONE 'UTC')
            """)
        // The day it was recorded must be read; the days before it need not be (the one 400 back is locked).
        #expect(
            try await Self.actions(f, locking: [days[0]]).filter { $0[0] == "PushRequested" } == [
                ["PushRequested", "push:imported", "done"]
            ])
    }

    /// The stream of the one installation `AuditReportTests.history` saves.
    static func installationStream(_ f: ReportFixture) async throws -> String {
        try await f.db.ledger.pool.query(
            "SELECT stream FROM stream_heads WHERE app_id = 'rep' AND stream LIKE 'installation:%'"
        )[0].string("stream")
    }
}
