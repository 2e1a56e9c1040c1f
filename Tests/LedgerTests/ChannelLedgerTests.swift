import Foundation
import Ledger
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// The own device channel's ledger side (SPEC §12.2): messages wait in PostgreSQL, and every ending — ack,
/// expiry, drop over the cap — is counted exactly once in the push's record. Expected counts are the hand
/// counts of what each test sends.
@Suite("Own channel ledger", .requiresPostgreSQL)
struct ChannelLedgerTests {
    let meta = EventMetadata(keyKind: "master")

    /// `count` android installations without a vendor token (installationIds `d1…`), on channel `c`.
    func devices(_ db: TestDatabase, app: String, count: Int, at now: Date) async throws {
        for i in 1...count {
            _ = try await db.ledger.installations.save(
                appId: app, body: ["deviceType": "android", "installationId": .string("d\(i)"), "channels": ["c"]],
                metadata: meta, now: now - 60)
        }
    }

    /// A push to channel `c` whose every target is queued on the channel, expiring at `expireAt`.
    func queuedPush(
        _ db: TestDatabase, _ app: App, alert: String, at now: Date, expireAt: Date, cap: Int64 = 100
    ) async throws -> String {
        let pushId = try await SimulatedPushes.push(
            ["channels": ["c"], "data": ["alert": .string(alert)]], app: app, at: now, db.ledger)
        let batches = PushBatches(store: db.ledger.events)
        while let claim = try await batches.claim(owner: "t", now: now) {
            let message = QueuedMessage(platform: "android", data: ["alert": .string(alert)], expireAt: expireAt)
            try await batches.record(
                claim, outcomes: claim.targets.map { _ in .queued(message) }, now: now, channelCap: cap)
        }
        return pushId
    }

    func record(_ db: TestDatabase, _ app: String, _ id: String) async throws -> JSON {
        try #require(try await db.ledger.pushQueries.get(appId: app, pushId: id)?.json)
    }

    func counts(_ r: JSON) -> [Int64] {
        ["devices", "successes", "errors", "androidSuccesses", "channelPending"].map { r[$0]?.intValue ?? -1 }
    }

    @Test("an ack counts once, even repeated; a device acks only its own sequence numbers")
    func ackExactlyOnce() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "a", appId: "chack")
        let t0 = Date()
        try await devices(db, app: app.appId, count: 3, at: t0)
        let channel = ChannelLedger(store: db.ledger.events)
        let pushId = try await queuedPush(db, app, alert: "hi", at: t0, expireAt: t0 + 3600)
        #expect(counts(try await record(db, app.appId, pushId)) == [3, 0, 0, 0, 3])

        let first = try await channel.pending(appId: app.appId, installationId: "d1", limit: 10)
        #expect(first.map(\.pushId) == [pushId])
        #expect(first.first?.json["data"] == ["alert": "hi"])
        let second = try #require(try await channel.pending(appId: app.appId, installationId: "d2", limit: 10).first)

        // Each device's sequence starts at 1; d1 naming a number it was never sent counts nothing.
        #expect(first[0].seq == 1 && second.seq == 1)
        #expect(try await channel.acknowledge(appId: app.appId, acks: [(installationId: "d1", seq: 2)]) == 0)
        #expect(try await channel.acknowledge(appId: app.appId, acks: [(installationId: "d1", seq: 1)]) == 1)
        #expect(try await channel.acknowledge(appId: app.appId, acks: [(installationId: "d1", seq: 1)]) == 0)
        #expect(try await channel.pending(appId: app.appId, installationId: "d2", limit: 10).count == 1)
        #expect(counts(try await record(db, app.appId, pushId)) == [3, 1, 0, 1, 2])
        #expect(try await channel.pending(appId: app.appId, installationId: "d1", limit: 10).isEmpty)
        // The acked push is the device's last delivery: an open attributes to it.
        let attributed = try await db.connect().query(
            "SELECT push_id FROM last_deliveries WHERE app_id = 'chack' AND installation_id = (SELECT object_id FROM installations WHERE installation_id = 'd1')"
        )
        #expect(attributed.first?["push_id"] == pushId)
    }

    @Test("message ids are each device's own sequence: 1, 2, 3… in the order stored, whatever others receive")
    func perDeviceSequence() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "a", appId: "chseq")
        let t0 = Date()
        try await devices(db, app: app.appId, count: 3, at: t0)
        let channel = ChannelLedger(store: db.ledger.events)
        var pushes: [String] = []
        for alert in ["one", "two", "three"] {
            pushes.append(try await queuedPush(db, app, alert: alert, at: t0, expireAt: t0 + 3600))
        }
        for device in ["d1", "d2", "d3"] {
            let waiting = try await channel.pending(appId: app.appId, installationId: device, limit: 10)
            #expect(waiting.map(\.seq) == [1, 2, 3], "\(device)")
            #expect(waiting.map(\.pushId) == pushes, "\(device)")
            #expect(waiting.map { $0.json["id"] } == ["1", "2", "3"])
        }
        // Acknowledged by their numbers, and the numbers go on after them.
        #expect(try await channel.acknowledge(appId: app.appId, acks: [("d1", 1), ("d1", 2), ("d1", 3)]) == 3)
        let fourth = try await queuedPush(db, app, alert: "four", at: t0, expireAt: t0 + 3600)
        #expect(try await channel.pending(appId: app.appId, installationId: "d1", limit: 10).map(\.seq) == [4])
        #expect(
            try await channel.pending(appId: app.appId, installationId: "d2", limit: 10).map(\.pushId)
                == pushes + [fourth])
    }

    @Test("a message past its expiration is never handed out and counts as an error Expired")
    func expiry() async throws {
        let clock = TestClock()
        let db = try await TestDatabase.make(clock: clock.serviceClock)
        let app = try await db.ledger.apps.create(name: "a", appId: "chexp")
        let t0 = clock.now()
        try await devices(db, app: app.appId, count: 2, at: t0)
        let channel = ChannelLedger(store: db.ledger.events)
        let pushId = try await queuedPush(db, app, alert: "soon", at: t0, expireAt: t0 + 3600)
        #expect(try await channel.expire() == 0)
        clock.advance(by: .seconds(3601))
        #expect(try await channel.pending(appId: app.appId, installationId: "d1", limit: 10).isEmpty)
        #expect(try await channel.expire() == 2)
        #expect(try await channel.expire() == 0)
        let r = try await record(db, app.appId, pushId)
        #expect(counts(r) == [2, 0, 2, 0, 0])
        #expect(r["errorReasons"] == ["Expired": 2])
    }

    @Test("over the per-device cap the oldest message is dropped with an event, and the device is told once")
    func cap() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "a", appId: "chcap")
        let t0 = Date()
        try await devices(db, app: app.appId, count: 1, at: t0)
        let channel = ChannelLedger(store: db.ledger.events)
        var pushes: [String] = []
        for i in 1...3 {
            pushes.append(
                try await queuedPush(db, app, alert: "m\(i)", at: t0 + Double(i), expireAt: t0 + 3600, cap: 2))
        }
        let waiting = try await channel.pending(appId: app.appId, installationId: "d1", limit: 10)
        #expect(waiting.map(\.pushId) == Array(pushes[1...]))
        let dropped = try await record(db, app.appId, pushes[0])
        #expect(counts(dropped) == [1, 0, 1, 0, 0])
        #expect(dropped["errorReasons"] == ["Dropped": 1])
        #expect(try await channel.takeDrops(appId: app.appId, installationId: "d1") == 1)
        #expect(try await channel.takeDrops(appId: app.appId, installationId: "d1") == 0)
    }
}
