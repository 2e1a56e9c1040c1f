import Foundation
import Postgres
import PushCore
import TestSupport
import Testing

@testable import Ledger

/// A targeting page's targets are sent to PostgreSQL once, inside its `PushTargeted` event; the page's batch
/// row copies them from there. Both are compressed with lz4 (migration 0016), including in day partitions
/// made after the migration.
@Suite("Target storage", .enabled(if: TestDatabase.isAvailable))
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
        let record = try #require(try await db.ledger.pushes.get(appId: app.appId, pushId: pushId))
        #expect(record.json["successes"]?.intValue == 60, "\(record.json)")
        #expect(record.json["devices"]?.intValue == 60)
        #expect(record.json["status"]?.stringValue == "done")
    }

    @Test("the batch row's statement runs its generic plan from the first page, never planning for each page")
    func batchStatementKeepsItsGenericPlan() async throws {
        let db = try await TestDatabase.make()
        let conn = try await db.connectCountingPlans()
        defer { Task { await conn.close() } }
        // A log kept 90 days has a partition per day: a plan made for each page would cover every one of them.
        try await conn.query(
            """
            SELECT pushledger_event_partition(d::date)
            FROM generate_series(current_date - 90, current_date - 1, interval '1 day') AS d
            """)
        try await conn.query("BEGIN")
        let stream = PushEvent.stream("p1")
        for page in 1...8 {
            let targets: JSON = ["targets": [["objectId": .string("i\(page)"), "deviceType": "ios"]]]
            try await conn.query(
                """
                INSERT INTO events (app_id, stream, version, type, data, metadata)
                VALUES ('app', \(stream), \(page), \(PushEvent.targeted), \(targets)::jsonb, '{}'::jsonb)
                """)
            try await FanOutStore.insertTargetedBatch(
                appId: "app", pushId: "p1", number: page, stream: stream, version: page, on: conn)
        }
        let copied = try await conn.query(
            "SELECT string_agg(targets -> 0 ->> 'objectId', ',' ORDER BY batch_no) AS ids FROM push_batches")
        #expect(copied[0]["ids"] == "i1,i2,i3,i4,i5,i6,i7,i8")
        // Every page ran the generic plan; none was planned for its values (each such plan covers every
        // partition, like the generic one, and PostgreSQL's default mode makes five before it weighs the latter).
        let plans = try await conn.query(
            """
            SELECT generic_plans, custom_plans FROM pg_prepared_statements
            WHERE statement LIKE 'INSERT INTO push_batches%'
            """)
        #expect(plans.count == 1)
        let counts = plans.first.map { ($0["generic_plans"] ?? "-", $0["custom_plans"] ?? "-") }
        #expect(counts.map { $0 == ("8", "0") } ?? false, "\(String(describing: counts))")
        try await conn.query("ROLLBACK")
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
