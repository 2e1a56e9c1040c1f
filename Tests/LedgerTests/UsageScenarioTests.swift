import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// The usage, limit and open-tracking projections over the scripted scenario (see `UsageScenario` for how
/// each figure comes about).
@Suite("Usage counters, limits and opens", .requiresPostgreSQL)
struct UsageScenarioTests {
    @Test("daily usage counts calls, their peak minute, devices and successes in the app's time zone")
    func dailyUsage() async throws {
        let db = try await TestDatabase.make()
        _ = try await UsageScenario.build(db.ledger)
        let rows = try await db.ledger.pool.query(
            """
            SELECT to_char(day, 'YYYY-MM-DD') AS day, calls, peak_calls_per_minute, devices, successes,
                   rate_limit_bans, quota_refusals
            FROM daily_usage WHERE app_id = \(UsageScenario.appId) ORDER BY day
            """)
        let table = try rows.map { r in
            [
                try r.string("day"), r["calls"]!, r["peak_calls_per_minute"]!, r["devices"]!, r["successes"]!,
                r["rate_limit_bans"]!, r["quota_refusals"]!,
            ]
        }
        #expect(
            table == [
                [UsageScenario.day1, "5", "3", "8", "7", "1", "1"],
                [UsageScenario.day2, "1", "1", "1", "1", "0", "0"],
            ])
    }

    @Test("a call beyond the rate bans every call for 60 s with Retry-After; the quota refuses with 119")
    func limits() async throws {
        let db = try await TestDatabase.make()
        let s = try await UsageScenario.build(db.ledger)
        #expect(s.refusals.map(\.code) == [429, 429, 119])
        #expect(s.refusals.map(\.kind) == [.tooManyRequests, .tooManyRequests, .forbidden])
        #expect(s.refusals[0].retryAfterSeconds == 60)
        #expect(s.refusals[1].retryAfterSeconds == 40)
        // The ban and the quota refusal are events; the call refused during the ban is not.
        let limitEvents = try await db.ledger.pool.query(
            "SELECT type FROM events WHERE app_id = \(UsageScenario.appId) AND stream = 'limits' ORDER BY position")
        #expect(try limitEvents.map { try $0.string("type") } == [UsageEvent.rateLimited, UsageEvent.quotaRefused])
        // P5 stopped at the quota after 2 of its 3 devices, and says so once sent.
        let p5 = try #require(try await db.ledger.pushQueries.get(appId: UsageScenario.appId, pushId: s.p5)?.json)
        #expect(p5["devices"] == 2)
        #expect(p5["successes"] == 2)
        #expect(p5["status"]?.stringValue == PushEvent.Status.quotaReached(8))
    }

    @Test("opens are attributed by _nid, else to the last delivery within 24 h, else counted as app opens")
    func opens() async throws {
        let db = try await TestDatabase.make()
        let s = try await UsageScenario.build(db.ledger)
        let stats = try await db.ledger.pool.query(
            """
            SELECT push_id, devices, successes, errors, ios_successes, android_successes, opens, unique_opens
            FROM push_stats WHERE app_id = \(UsageScenario.appId) AND push_id = ANY(\([s.p1, s.p5, s.p6])::text[])
            """)
        var byPush: [String: [String]] = [:]
        for r in stats {
            byPush[try r.string("push_id")] = [
                "devices", "successes", "errors", "ios_successes", "android_successes",
                "opens", "unique_opens",
            ].map { r[$0]! }
        }
        #expect(byPush[s.p1] == ["6", "5", "1", "4", "1", "4", "3"])
        #expect(byPush[s.p5] == ["2", "2", "0", "0", "2", "0", "0"])
        #expect(byPush[s.p6] == ["1", "1", "0", "1", "0", "1", "1"])
        let p1 = try #require(try await db.ledger.pushQueries.get(appId: UsageScenario.appId, pushId: s.p1)?.json)
        #expect(p1["opens"] == 4)

        let seconds = try await db.ledger.pool.query(
            """
            SELECT installation_id, seconds_to_open, opens FROM push_opens
            WHERE app_id = \(UsageScenario.appId) AND push_id = \(s.p1) ORDER BY seconds_to_open
            """
        ).map { [try $0.string("installation_id"), $0["seconds_to_open"]!, $0["opens"]!] }
        #expect(
            seconds == [
                [s.installations["i1"]!, "600", "2"], [s.installations["i2"]!, "3600", "1"],
                [s.installations["a1"]!, "7200", "1"],
            ])

        let daily = try await db.ledger.pool.query(
            """
            SELECT to_char(day, 'YYYY-MM-DD') || ' ' || platform AS k, successes, push_opens, unique_push_opens, app_opens
            FROM daily_opens WHERE app_id = \(UsageScenario.appId) ORDER BY day, platform
            """
        ).map { r in [try r.string("k"), r["successes"]!, r["push_opens"]!, r["unique_push_opens"]!, r["app_opens"]!] }
        #expect(
            daily == [
                ["2026-10-01 android", "3", "1", "1", "1"],
                ["2026-10-01 ios", "4", "3", "2", "1"],
                ["2026-10-02 ios", "1", "1", "1", "1"],
            ])
    }

    @Test("opens bump updatedAt forward only, and everything rebuilds identically from the log")
    func rebuildAndValidity() async throws {
        let db = try await TestDatabase.make()
        let s = try await UsageScenario.build(db.ledger)
        let i3 = try await db.ledger.pool.query(
            "SELECT updated_at FROM installations WHERE app_id = \(UsageScenario.appId) AND object_id = \(s.installations["i3"]!)"
        )
        #expect(try i3[0].date("updated_at") == UsageScenario.day1(9000))
        let report = try await db.ledger.rebuilder().run(verify: true)
        #expect(report.differences.isEmpty, "\(report.differences)")
    }

    @Test("bad opens are refused and append nothing")
    func badOpens() async throws {
        let db = try await TestDatabase.make()
        _ = try await UsageScenario.build(db.ledger)
        let before = try await db.eventCount()
        let meta = EventMetadata(keyKind: "client")
        #expect(throws: LeanError.self) { try AppOpen.parseEvent([:]) }
        #expect(throws: LeanError.self) { try AppOpen.parseEvent(["objectId": "x", "at": "yesterday"]) }
        #expect(throws: LeanError.self) { try AppOpen.parseCollect(["device": ["installation_id": "iid-a1"]]) }
        await #expect(throws: LeanError.self) {
            try await db.ledger.opens.record(
                appId: UsageScenario.appId, AppOpen(installation: .objectId("nope"), kind: .app),
                metadata: meta)
        }
        // One bad open in a batch refuses the whole batch.
        await #expect(throws: LeanError.self) {
            try await db.ledger.opens.record(
                appId: UsageScenario.appId,
                [
                    AppOpen(installation: .installationId("iid-a1"), kind: .app),
                    AppOpen(installation: .installationId("iid-a1"), kind: .app, at: Date().addingTimeInterval(3600)),
                ], metadata: meta)
        }
        #expect(try await db.eventCount() == before)
    }
}
