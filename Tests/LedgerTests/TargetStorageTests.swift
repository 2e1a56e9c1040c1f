import Foundation
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

@testable import Ledger

/// A targeting page's targets are sent to PostgreSQL once, inside its `PushTargeted` event; the page's batch
/// row copies them from there. Both are compressed with lz4 (migration 0016), including in day partitions
/// made after the migration.
@Suite("Target storage", .requiresPostgreSQL)
struct TargetStorageTests {
    @Test("each page's batch row holds that page's targets, copied from its event, and the push reaches all")
    func batchesCopyTheirEventsTargets() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "x", appId: "targets")
        let t0 = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let saved = Set(try await db.saveIOSInstallations(app: app.appId, count: 60, now: t0 - 60))
        // Pages of 25: two full pages and a last one of 10, whose batch must still be sent.
        let pushId = try await SimulatedPushes.push(
            ["channels": ["all"], "data": ["alert": "hi"]], app: app, at: t0, db.ledger, pageSize: 25)

        let conn = try await db.connect()
        defer { Task { await conn.close() } }
        let batches = try await conn.query(
            """
            SELECT batch_no, targets, pg_column_compression(targets) AS method FROM push_batches
            WHERE app_id = 'targets' AND push_id = \(pushId) ORDER BY batch_no
            """)
        let events = try await conn.query(
            """
            SELECT data -> 'batch' AS batch, data -> 'targets' AS targets, pg_column_compression(data) AS method
            FROM events WHERE app_id = 'targets' AND stream = \(PushEvent.stream(pushId)) AND type = \(PushEvent.targeted)
            ORDER BY version
            """)
        #expect(batches.count == 3 && events.count == 3)
        var targeted: [PushTarget] = []
        for (batch, event) in zip(batches, events) {
            #expect(try event.json("batch").intValue == Int64(try batch.int("batch_no")))
            #expect(try event.json("targets") == (try batch.json("targets")))
            // PostgreSQL compresses values of rows over about 2 kB: the full pages (25 targets, 3 kB of JSON).
            let compressed: String? = try batch.int("batch_no") < 2 ? "lz4" : nil
            #expect(batch["method"] == compressed)
            #expect(event["method"] == compressed)
            targeted += (try batch.json("targets").arrayValue ?? []).compactMap(PushTarget.init(json:))
        }
        #expect(targeted.count == saved.count)
        #expect(Set(targeted.map(\.objectId)) == saved)
        #expect(Set(targeted.map(\.token)) == Set((1...60).map { String(format: "%064x", $0) }))

        try await SimulatedPushes.deliverPending(at: t0, db.ledger)
        let record = try #require(try await db.ledger.pushQueries.get(appId: app.appId, pushId: pushId))
        #expect(record.json["successes"]?.intValue == 60, "\(record.json)")
        #expect(record.json["devices"]?.intValue == 60)
        #expect(record.json["status"]?.stringValue == "done")
    }

    @Test(
        "a push is targeted and sent while the log's earlier days are locked: its batch rows' copy plans for today's days only"
    )
    func batchCopyLeavesEarlierDaysAlone() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "x", appId: "days")
        let t0 = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let saved = Set(try await db.saveIOSInstallations(app: app.appId, count: 25, now: t0 - 60))
        // A log kept 90 days has a partition per day.
        try await db.ledger.pool.query(
            """
            SELECT count(pushledger_event_partition(d::date)) AS n
            FROM generate_series(current_date - 90, current_date - 1, interval '1 day') AS d
            """)
        // Another session holds the oldest and the latest of the earlier days.
        let days = try await db.ledger.pool.query(
            """
            SELECT pushledger_event_partition(current_date - 90) AS oldest,
                   pushledger_event_partition(current_date - 1) AS latest
            """)[0]
        let holder = try await LockedPartitions.hold([try days.string("oldest"), try days.string("latest")], in: db)
        // The control: the copy's lookup bounded by `now()` instead, which is known only when the statement
        // runs, is planned over every day and waits.
        #expect(
            try await LockedPartitions.failure(
                of: """
                    SELECT count(*) AS n FROM events
                    WHERE app_id = 'days' AND stream = 'push:p' AND version = 1 AND recorded_at >= now()
                    """, in: db) == "55P03")

        // Pages of 10: three batches, each copied from its page's event.
        let pushId = try await LockedPartitions.completes(holding: holder) {
            try await SimulatedPushes.push(
                ["channels": ["all"], "data": ["alert": "hi"]], app: app, at: t0, db.ledger, pageSize: 10)
        }
        try await LockedPartitions.completes(holding: holder) {
            try await SimulatedPushes.deliverPending(at: t0, db.ledger)
        }
        try await holder.query("ROLLBACK")
        await holder.close()

        let batches = try await db.ledger.pool.query(
            """
            SELECT batch_no, targets FROM push_batches WHERE app_id = 'days' AND push_id = \(pushId) ORDER BY batch_no
            """)
        #expect(try batches.map { try $0.int("batch_no") } == [0, 1, 2])
        let targeted = try batches.flatMap {
            (try $0.json("targets").arrayValue ?? []).compactMap(PushTarget.init(json:))
        }
        #expect(targeted.count == 25)
        #expect(Set(targeted.map(\.objectId)) == saved)
        let record = try #require(try await db.ledger.pushQueries.get(appId: app.appId, pushId: pushId))
        #expect(record.json["successes"]?.intValue == 25, "\(record.json)")
        #expect(record.json["status"]?.stringValue == "done")
    }

    @Test("every partition of the log compresses its data with lz4, one made after the migration too")
    func partitionsCompressWithLZ4() async throws {
        let db = try await TestDatabase.make()
        let conn = try await db.connect()
        defer { Task { await conn.close() } }
        let made = try await conn.query("SELECT pushledger_event_partition(current_date + 400) AS name")[0].string(
            "name")
        let methods = try await conn.query(
            """
            SELECT c.relname, a.attcompression::text AS method FROM pg_inherits i
            JOIN pg_class c ON c.oid = i.inhrelid
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'data'
            WHERE i.inhparent = 'events'::regclass
            """)
        #expect(methods.contains { $0["relname"] == made })
        #expect(methods.contains { $0["relname"] == "events_default" })
        for row in methods { #expect(row["method"] == "l", "\(row["relname"] ?? "?")") }
    }
}
