import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

@Suite("Push scheduling and targeting", .requiresPostgreSQL)
struct PushSchedulingTests {
    @Test("a scheduled push is targeted at its time, not before, in keyset pages with exact counts")
    func scheduledPushFiresAtItsTime() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "s", appId: "sched")
        let meta = EventMetadata(keyKind: "master")
        for i in 0..<1203 {
            _ = try await db.ledger.installations.save(
                appId: app.appId,
                body: [
                    "deviceType": "ios", "deviceToken": .string(String(format: "%064x", i + 1)), "channels": ["c"],
                ], metadata: meta)
        }
        let now = Date()
        let pushTime = now.addingTimeInterval(600)
        let request = try PushRequest.parse(
            ["channels": ["c"], "data": ["alert": "x"], "push_time": .string(LeanDate.format(pushTime))],
            devicesEndpoint: false, headerProd: nil, now: now)
        #expect(request.isScheduled)
        let accepted = try await db.ledger.pushes.request(request, app: app, metadata: meta, now: now)
        // Pages of 600 (two batches of 300): 1,203 devices are three pages and five batches.
        let targeting = PushTargeting(store: db.ledger.events, pageSize: 300, batchesPerPage: 2)
        #expect(try await targeting.dueJobs(now: now.addingTimeInterval(599)).isEmpty)
        #expect(
            try await targeting.step(app: app, pushId: accepted.objectId, now: now.addingTimeInterval(599)) == false)
        #expect(
            try await db.ledger.pushQueries.get(appId: app.appId, pushId: accepted.objectId)?.json["status"]
                == "scheduled")

        let at = pushTime.addingTimeInterval(1)
        #expect(try await targeting.dueJobs(now: at).map(\.pushId) == [accepted.objectId])
        var pages = 1
        while try await targeting.step(app: app, pushId: accepted.objectId, now: at) { pages += 1 }
        #expect(pages == 3)
        let record = try #require(
            try await db.ledger.pushQueries.get(appId: app.appId, pushId: accepted.objectId)?.json)
        #expect(record["devices"] == 1203)
        #expect(record["status"] == "in-queue")
        let batches = try await db.ledger.pool.query(
            "SELECT count(*) AS n, sum(jsonb_array_length(targets)) AS t FROM push_batches WHERE push_id = \(accepted.objectId)"
        )[0]
        #expect(try batches.int("n") == 5)
        #expect(try batches.int("t") == 1203)
        #expect(try await targeting.dueJobs(now: at).isEmpty)
    }

    @Test("a dev push over 20,000 targets is refused with LeanCloud's status")
    func devProfileLimit() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "d", appId: "dev")
        // Bulk-load 20,001 installations through the log with one event per installation.
        try await db.ledger.events.write(appId: app.appId, metadata: .system("test"), lockKeys: []) { tx in
            try await tx.connection.query(
                """
                INSERT INTO events (app_id, stream, version, type, data, metadata)
                SELECT 'dev', 'installation:' || lpad(to_hex(g), 24, '0'), 1, 'InstallationCreated',
                    jsonb_build_object('objectId', lpad(to_hex(g), 24, '0'), 'createdAt', now()::text, 'updatedAt', now()::text,
                        'fields', jsonb_build_object('deviceType', 'ios', 'deviceToken', lpad(to_hex(g), 64, '0'))),
                    '{"keyKind":"system"}'
                FROM generate_series(1, 20001) g
                """)
        }
        _ = try await db.ledger.rebuilder().run(verify: false)
        #expect(try await db.ledger.pool.query("SELECT count(*) AS n FROM installations")[0].int("n") == 20001)
        let request = try PushRequest.parse(
            ["data": ["alert": "x"], "prod": "dev"], devicesEndpoint: false, headerProd: nil, now: Date())
        let accepted = try await db.ledger.pushes.request(request, app: app, metadata: .system("test"))
        #expect(try await PushTargeting(store: db.ledger.events).step(app: app, pushId: accepted.objectId) == false)
        let record = try #require(
            try await db.ledger.pushQueries.get(appId: app.appId, pushId: accepted.objectId)?.json)
        #expect(record["status"]?.stringValue == PushEvent.Status.devLimit)
        #expect(record["devices"] == 0)
    }
}
