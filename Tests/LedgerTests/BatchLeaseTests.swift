import Foundation
import Ledger
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// A batch's lease: a live sender renews it, so only a dead sender's batch becomes claimable by others.
@Suite("Batch leases", .requiresPostgreSQL)
struct BatchLeaseTests {
    @Test("a renewed lease keeps the batch from other workers; a lapsed one lets them take it over")
    func renewal() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "x", appId: "lease")
        // A whole second: the push's send_at round-trips through PostgreSQL's microseconds.
        let t0 = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        _ = try await db.ledger.installations.save(
            appId: app.appId,
            body: [
                "deviceType": "ios", "deviceToken": .string(String(format: "%064x", 1)), "channels": ["news"],
            ], metadata: EventMetadata(keyKind: "master"), now: t0 - 60)
        _ = try await SimulatedPushes.push(
            ["channels": ["news"], "data": ["alert": "hi"]], app: app, at: t0, db.ledger)
        let batches = PushBatches(store: db.ledger.events)
        let lease = Duration.seconds(30)

        let first = try #require(try await batches.claim(owner: "a", lease: lease, now: t0))
        #expect(first.owner == "a")
        #expect(try await batches.renew(first, lease: lease, now: t0 + 20))
        // Past the first lease but within the renewed one: nobody else may take it.
        #expect(try await batches.claim(owner: "b", lease: lease, now: t0 + 40) == nil)

        // a stops renewing (it died): once the renewed lease lapses, b takes the batch over.
        let second = try #require(try await batches.claim(owner: "b", lease: lease, now: t0 + 51))
        #expect(second.batchNo == first.batchNo && second.owner == "b")
        #expect(try await batches.renew(first, lease: lease, now: t0 + 52) == false, "a's lease is gone")
        #expect(try await batches.renew(second, lease: lease, now: t0 + 52))

        #expect(try await batches.record(second, outcomes: [.delivered], now: t0 + 53) != nil)
        #expect(try await batches.renew(second, lease: lease, now: t0 + 54) == false, "a recorded batch has no lease")
    }
}
