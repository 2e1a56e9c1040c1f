import Foundation
import Ledger
import Postgres
import PushCore
import Reports
import TestSupport

/// A fresh database with one app in Asia/Shanghai (UTC+8, so local days differ from UTC days), projection
/// rows written directly as test data, and real events from the stores for the audit.
struct ReportFixture {
    static let appId = "rep"
    let db: TestDatabase
    let runner: ReportRunner

    static func make() async throws -> ReportFixture {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(
            name: "Reports", appId: appId, appKey: "plainAppKey123", masterKey: "plainMasterKey456")
        _ = try await db.ledger.apps.set(
            appId: appId,
            [("timezone", "Asia/Shanghai"), ("apns.key_id", "KEYID789"), ("apns.topic", "com.example.shop")])
        let conn = try await db.connect()
        try await conn.execute(unsafeScript: projectionRows)
        await conn.close()
        return ReportFixture(db: db, runner: ReportRunner(pool: db.ledger.pool))
    }

    func run(
        _ name: ReportName, from: String? = nil, to: String? = nil, by: OpensGrouping? = nil,
        format: ReportFormat
    ) async throws -> String {
        let request = ReportRequest(name: name, appId: Self.appId, from: from, to: to, grouping: by)
        return try await runner.run(request).render(format)
    }

    /// Usage of four days (one outside the range the tests ask for), pushes around the local day boundary,
    /// their opens, and daily opens. Another app's rows prove that reports stay within their app.
    static let projectionRows = """
        INSERT INTO daily_usage (app_id, day, calls, peak_calls_per_minute, devices, successes, closed) VALUES
            ('rep', '2026-10-31', 1, 1, 1, 1, true),
            ('rep', '2026-11-01', 10, 600, 1000000, 999000, true),
            ('rep', '2026-11-02', 2000, 1201, 1010001, 1000000, true),
            ('rep', '2026-11-03', 50000, 9601, 2000001, 1999999, false),
            ('other', '2026-11-02', 99, 99999, 99999999, 0, true);
        INSERT INTO push_stats (app_id, push_id, notification_id, created_at, devices, successes, ios_successes,
            android_successes, errors, opens, unique_opens) VALUES
            ('rep', 'p0', 'n0', '2026-11-01T15:00:00Z', 1, 1, 1, 0, 0, 0, 0),
            ('rep', 'p1', 'n1', '2026-11-01T17:00:00Z', 10, 8, 5, 3, 2, 5, 3),
            ('rep', 'p2', 'n1', '2026-11-02T03:00:00Z', 4, 3, 3, 0, 1, 1, 1),
            ('rep', 'p3', NULL, '2026-11-02T10:00:00Z', 0, 0, 0, 0, 0, 0, 0),
            ('other', 'p9', 'n1', '2026-11-02T03:00:00Z', 100, 100, 100, 0, 0, 100, 100);
        INSERT INTO push_opens (app_id, push_id, installation_id, platform, first_open_at, seconds_to_open, opens) VALUES
            ('rep', 'p1', 'i1', 'ios', '2026-11-01T17:00:30Z', 30, 3),
            ('rep', 'p1', 'i2', 'android', '2026-11-01T17:11:40Z', 700, 1),
            ('rep', 'p1', 'i3', 'ios', '2026-11-02T18:00:00Z', 90000, 1),
            ('rep', 'p2', 'i4', 'ios', '2026-11-02T03:00:03Z', 3, 1),
            ('other', 'p9', 'i9', 'ios', '2026-11-02T03:00:03Z', 1, 1);
        INSERT INTO daily_opens (app_id, day, platform, successes, push_opens, unique_push_opens, app_opens) VALUES
            ('rep', '2026-11-01', 'ios', 1, 0, 0, 4),
            ('rep', '2026-11-02', 'android', 3, 1, 1, 2),
            ('rep', '2026-11-02', 'ios', 8, 5, 3, 7),
            ('rep', '2026-11-03', 'ios', 0, 0, 0, 1);
        """
}
