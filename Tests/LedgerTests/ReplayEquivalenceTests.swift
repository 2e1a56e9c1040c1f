import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// The fast set-based fold must be InstallationProjection itself, only faster: after a random workload that
/// uses every installation event type, replay at "now" equals the live table and replay at an earlier instant
/// equals a snapshot of the live table taken at that instant, for both fold strategies.
@Suite("Replay: the fold equals the projection", .requiresPostgreSQL)
struct ReplayEquivalenceTests {
    @Test("random workload: replay at now = live table, replay at an earlier instant = snapshot then")
    func foldEqualsLiveTableAndSnapshot() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "r", appId: "replayeq")
        let seed = UInt64.random(in: 0...UInt64.max)
        print("ReplayEquivalenceTests seed \(seed)")
        var rng = SeededRandom(seed: seed)
        var workload = RandomInstallationWorkload(db: db, appId: app.appId)

        try await workload.run(steps: 120, using: &rng)
        try await ReplayTestSupport.tick()
        let middle = Date()
        try await db.ledger.pool.query(
            "CREATE TABLE snap AS SELECT * FROM installations WHERE app_id = \(app.appId)")
        try await ReplayTestSupport.tick()
        // The setting in force at `middle` must be the one replay uses, not this later one.
        try await db.ledger.apps.set(appId: app.appId, [("installation_ttl_days", "1")])
        try await workload.run(steps: 120, using: &rng)
        try await ReplayTestSupport.tick()
        let end = Date()

        let live = try await db.ledger.pool.query(
            "SELECT count(*) AS n FROM installations WHERE app_id = \(app.appId)")[0].int("n")
        #expect(live > 10)
        #expect(workload.kindsUsed.isSuperset(of: RandomInstallationWorkload.Kind.allCases), "\(workload.kindsUsed)")
        let replayer = Replayer(store: db.ledger.events)
        for strategy in ReplayFoldStrategy.allCases {
            for (instant, table) in [(middle, "snap"), (end, "installations")] {
                let (onlyReplay, onlyLive) = try await replayer.withReplayedInstallations(
                    app: app, at: instant, strategy: strategy
                ) { conn, state in
                    (
                        try await ReplayTestSupport.rowsOnlyIn(
                            state.scratch.installations, notIn: table, app: app.appId, on: conn),
                        try await ReplayTestSupport.rowsOnlyIn(
                            table, notIn: state.scratch.installations, app: app.appId, on: conn)
                    )
                }
                #expect(onlyReplay.isEmpty, "\(strategy) at \(table): only in replay \(onlyReplay) (seed \(seed))")
                #expect(onlyLive.isEmpty, "\(strategy) at \(table): only live \(onlyLive) (seed \(seed))")
            }
        }
        // The settings are folded too: the TTL of one day set after `middle` does not apply at `middle`.
        try await replayer.withReplayedInstallations(app: app, at: middle) { _, state in
            #expect(state.app.intSetting("installation_ttl_days") == 90)
        }
        try await replayer.withReplayedInstallations(app: app, at: end) { _, state in
            #expect(state.app.intSetting("installation_ttl_days") == 1)
        }
        // Replay leaves no scratch schema behind.
        let leftovers = try await db.ledger.pool.query(
            "SELECT count(*) AS n FROM pg_namespace WHERE nspname LIKE 'pushledger_replay_%'")[0].int("n")
        #expect(leftovers == 0)
    }

    @Test("replay's where is targeting's where: at now it equals the live table queried with the same condition")
    func replayAtNowMatchesLiveTargetingQuery() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "r", appId: "replaynow")
        var rng = SeededRandom(seed: UInt64.random(in: 0...UInt64.max))
        var workload = RandomInstallationWorkload(db: db, appId: app.appId)
        try await workload.run(steps: 80, using: &rng)
        try await ReplayTestSupport.tick()
        let now = Date()
        let wheres: [JSON] = [
            [:], ["channels": "c1"], ["channels": ["$in": ["c2", "c3"]]], ["deviceType": "android"],
            ["$or": [["channels": "c1"], ["level": ["$gte": 3]]]], ["badge": ["$exists": true]],
        ]
        for whereJSON in wheres {
            let condition = try PushTargeting.targetCondition(app: app, whereJSON: whereJSON, now: now)
            let expected = try await db.ledger.pool.query(
                "SELECT object_id FROM installations WHERE \(condition) ORDER BY object_id"
            ).map { try $0.string("object_id") }
            let replayed = try await Replayer(store: db.ledger.events).replay(app: app, at: now, whereJSON: whereJSON)
            #expect(replayed.objectIds == expected, "where \(whereJSON.encoded())")
        }
        await #expect(throws: LeanError.self) {
            try await Replayer(store: db.ledger.events).replay(
                app: app, at: now, whereJSON: ["channels": ["$bogus": 1]])
        }
    }
}
