import Foundation
import Ledger
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// Parts of one push recorded at once by several senders go in together (`PushBatches.recordPart`): the
/// counts stay exact, every part keeps its own `PushBatchDelivered`, and the push completes once, last.
@Suite("Recording a push's parts together", .requiresPostgreSQL)
struct PartRecordingTests {
    @Test("four senders recording five parts each: exact counts, one event per part, fewer transactions than parts")
    func concurrentParts() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "parts", appId: "parts")
        let now = Date()
        let ids = try await db.saveIOSInstallations(app: app.appId, count: 40, channels: ["c"], now: now - 60)
        // Four batches of ten.
        let pushId = try await SimulatedPushes.push(
            ["channels": ["c"], "data": ["alert": "x"]], app: app, at: now, db.ledger, pageSize: 10,
            batchesPerPage: 1)
        let batches = PushBatches(store: db.ledger.events)
        var claims: [BatchClaim] = []
        while let claim = try await batches.claim(owner: "sender-\(claims.count)", now: now) { claims.append(claim) }
        #expect(claims.count == 4)
        // Every fifth device's answer is an error; the first device's token is dead.
        func outcome(_ target: PushTarget) -> TargetOutcome {
            let n = ids.firstIndex(of: target.objectId)!
            if n == 0 { return .invalidToken(reason: "BadDeviceToken", since: now) }
            return n % 5 == 4 ? .failed(reason: "InternalServerError") : .delivered
        }
        // 40 devices: 1 dead token, 8 errors (n = 4, 9, …, 39), 31 delivered.
        let recorded = try await withThrowingTaskGroup(of: Int.self) { group in
            for claim in claims {
                group.addTask {
                    var parts = 0
                    for start in stride(from: 0, to: claim.targets.count, by: 2) {
                        let part = (start..<min(start + 2, claim.targets.count)).map {
                            (index: $0, outcome: outcome(claim.targets[$0]))
                        }
                        if try await batches.recordPart(claim, part, now: now) != nil { parts += 1 }
                    }
                    return parts
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(recorded == 20)
        let record = try #require(try await db.ledger.pushQueries.get(appId: app.appId, pushId: pushId)?.json)
        #expect(record["status"] == "done")
        #expect(record["successes"] == 31)
        #expect(record["errors"] == 9)
        let events = try await db.ledger.pool.query(
            """
            SELECT type, transaction_id::text AS tx FROM events
            WHERE app_id = \(app.appId) AND stream = \(PushEvent.stream(pushId)) ORDER BY version
            """)
        let delivered = events.filter { $0["type"] == "PushBatchDelivered" }
        #expect(delivered.count == 20)
        #expect(events.filter { $0["type"] == "PushCompleted" }.count == 1)
        #expect(events.last?["type"] == "PushCompleted")
        #expect(
            Set(delivered.compactMap { $0["tx"] }).count < 20,
            "the parts that waited while another record committed did not go in together")
        #expect(try await db.ledger.rebuilder().run(verify: true).differences.isEmpty)
    }
}
