import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// Issue 16 item 4: replay folds objects of other classes to its instant with the installation step
/// (ObjectFold); after concurrent creates, updates and deletes of users and teams, the fold at an earlier
/// instant equals a snapshot of `objects` taken then, and the fold at now equals the live table.
@Suite("Replay: objects folded to the instant", .requiresPostgreSQL)
struct ObjectReplayTests {
    @Test("object fold at an earlier instant = snapshot then; at now = live objects")
    func objectFoldEqualsSnapshotAndLiveTable() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "o", appId: "objreplay")
        let seed = UInt64.random(in: 0...UInt64.max)
        print("ObjectReplayTests seed \(seed)")
        try await ObjectRebuildTests().workload(db, appId: app.appId, seed: seed)
        try await ReplayTestSupport.tick()
        let middle = Date()
        try await db.ledger.pool.query("CREATE TABLE snapobj AS SELECT * FROM objects WHERE app_id = \(app.appId)")
        try await ReplayTestSupport.tick()
        try await ObjectRebuildTests().workload(db, appId: app.appId, seed: seed &+ 1000)
        try await ReplayTestSupport.tick()
        let end = Date()

        let counts = try await db.ledger.pool.query(
            """
            SELECT (SELECT count(*) FROM snapobj) AS then, (SELECT count(*) FROM objects WHERE app_id = \(app.appId)) AS now,
                (SELECT count(*) FROM events WHERE app_id = \(app.appId) AND type = \(ObjectEvent.deleted)) AS deletes
            """)[0]
        // The workload must have left something to compare and deleted something the fold must drop.
        #expect(try counts.int("then") > 20 && counts.int("now") > counts.int("then") && counts.int("deletes") > 0)
        let replayer = Replayer(store: db.ledger.events)
        for (instant, table) in [(middle, "snapobj"), (end, "objects")] {
            let (onlyReplay, onlyLive) = try await replayer.withReplayedInstallations(
                app: app, at: instant, withObjects: true
            ) { conn, state in
                let key = "class_name, object_id"
                return (
                    try await ReplayTestSupport.rowsOnlyIn(
                        state.scratch.objects, notIn: table, app: app.appId, key: key, on: conn),
                    try await ReplayTestSupport.rowsOnlyIn(
                        table, notIn: state.scratch.objects, app: app.appId, key: key, on: conn)
                )
            }
            #expect(onlyReplay.isEmpty, "at \(table): only in replay \(onlyReplay) (seed \(seed))")
            #expect(onlyLive.isEmpty, "at \(table): only live \(onlyLive) (seed \(seed))")
        }
    }
}
