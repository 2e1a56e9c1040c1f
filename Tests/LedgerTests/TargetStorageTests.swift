import Foundation
import Ledger
import Postgres
import PushCore
import TestSupport
import Testing

/// A targeting page's targets are sent to PostgreSQL once, inside its `PushTargeted` event; the page's batch
/// row copies them from there. Both are compressed with lz4 (migration 0016), including in day partitions
/// made after the migration.
@Suite("Target storage", .enabled(if: TestDatabase.isAvailable))
struct TargetStorageTests {
    @Test("the batch row holds the page's targets, copied from its event, and the push delivers to all of them")
    func batchCopiesTheEventsTargets() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "x", appId: "targets")
        let t0 = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        var saved: Set<String> = []
        for i in 1...60 {
            saved.insert(
                try await db.ledger.installations.save(
                    appId: app.appId,
                    body: [
                        "deviceType": "ios", "deviceToken": .string(String(format: "%064x", i)), "channels": ["all"],
                    ],
                    metadata: EventMetadata(keyKind: "master"), now: t0 - 60
                ).objectId)
        }
        let pushId = try await SimulatedPushes.push(
            ["channels": ["all"], "data": ["alert": "hi"]], app: app, at: t0, db.ledger)

        let conn = try await db.connect()
        defer { Task { await conn.close() } }
        let batches = try await conn.query(
            """
            SELECT batch_no, targets, pg_column_compression(targets) AS method FROM push_batches
            WHERE app_id = 'targets' AND push_id = \(pushId)
            """)
        #expect(batches.count == 1)
        let batch = try #require(batches.first)
        let targets = (try batch.json("targets").arrayValue ?? []).compactMap(PushTarget.init(json:))
        #expect(Set(targets.map(\.objectId)) == saved)
        #expect(targets.count == saved.count)
        #expect(Set(targets.map(\.token)) == Set((1...60).map { String(format: "%064x", $0) }))
        #expect(batch["method"] == "lz4")
        let event = try await conn.query(
            """
            SELECT data -> 'targets' AS targets, pg_column_compression(data) AS method FROM events
            WHERE app_id = 'targets' AND stream = \(PushEvent.stream(pushId)) AND type = \(PushEvent.targeted)
            """)
        #expect(event.count == 1)
        #expect(try event.first?.json("targets") == (try batch.json("targets")))
        #expect(event.first?["method"] == "lz4")

        try await SimulatedPushes.deliverPending(at: t0, db.ledger)
        let record = try #require(try await db.ledger.pushes.get(appId: app.appId, pushId: pushId))
        #expect(record.json["successes"]?.intValue == 60, "\(record.json)")
        #expect(record.json["devices"]?.intValue == 60)
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
