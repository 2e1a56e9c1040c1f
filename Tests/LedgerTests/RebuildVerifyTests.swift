import Foundation
import Ledger
import Postgres
import PushCore
import TestSupport
import Testing

@Suite("Rebuild and verify", .enabled(if: TestDatabase.isAvailable))
struct RebuildVerifyTests {
    /// A randomized workload of installation changes from concurrent clients, seeded for reproducibility.
    static func randomWorkload(_ db: TestDatabase, appId: String, operations: Int, seed: UInt64) async throws {
        let store = db.ledger.installations
        let meta = EventMetadata(keyKind: "client", address: "127.0.0.1", userAgent: "test")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var rng = SeededRandom(seed: seed &+ UInt64(worker))
                    var mine: [String] = []
                    for _ in 0..<(operations / 8) {
                        let token = String(format: "%064x", Int(rng.next() % 300))
                        switch rng.next() % 10 {
                        case 0...3:
                            var body: [String: JSON] = [
                                "deviceType": "ios", "deviceToken": .string(token),
                                "channels": .array([.string("c\(rng.next() % 5)")]),
                            ]
                            if rng.next() % 3 == 0 { body["badge"] = .int(Int64(rng.next() % 4)) }
                            if rng.next() % 4 == 0 { body["custom"] = ["n": .int(Int64(rng.next() % 100))] }
                            let r = try await store.save(appId: appId, body: body, metadata: meta)
                            mine.append(r.objectId)
                        case 4...6 where !mine.isEmpty:
                            let id = mine[Int(rng.next() % UInt64(mine.count))]
                            let body: [String: JSON] = [
                                "channels": ["__op": "AddUnique", "objects": [.string("u\(rng.next() % 3)")]],
                                "badge": rng.next() % 2 == 0 ? ["__op": "Increment", "amount": 2] : 0,
                                "timeZone": rng.next() % 2 == 0 ? "Asia/Shanghai" : ["__op": "Delete"],
                            ]
                            _ = try? await store.update(appId: appId, objectId: id, body: body, metadata: meta)
                        case 7 where !mine.isEmpty:
                            let id = mine.remove(at: Int(rng.next() % UInt64(mine.count)))
                            try? await store.delete(appId: appId, objectId: id, metadata: meta)
                        default:
                            let body: [String: JSON] = [
                                "deviceType": "android", "installationId": .string("iid-\(rng.next() % 200)"),
                                "registrationId": .string("reg-\(rng.next())"),
                            ]
                            _ = try await store.save(appId: appId, body: body, metadata: meta)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("rebuild --verify passes after thousands of random installation changes, and catches tampering")
    func verifyAfterRandomWorkload() async throws {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "a", appId: "appA")
        _ = try await db.ledger.apps.create(name: "b", appId: "appB")
        try await Self.randomWorkload(db, appId: "appA", operations: 2400, seed: 42)
        try await Self.randomWorkload(db, appId: "appB", operations: 800, seed: 7)
        #expect(try await db.eventCount() > 2500)

        let report = try await db.ledger.rebuilder().run(verify: true)
        #expect(report.differences.isEmpty, "\(report.differences)")
        #expect(report.events == (try await db.eventCount()))
        Self.expectPhases(report, ["prepare", "folds", "pages", "compare"])

        // Writing a projection table behind the log's back is caught.
        try await db.ledger.pool.query(
            "UPDATE installations SET data = data || '{\"tampered\":true}' WHERE object_id = (SELECT min(object_id) FROM installations)"
        )
        let tampered = try await db.ledger.rebuilder().run(verify: true)
        #expect(tampered.differences.map(\.table) == ["installations"])
        #expect(tampered.differences.first?.onlyLive.count == 1)

        // A plain rebuild repairs it.
        Self.expectPhases(try await db.ledger.rebuilder().run(verify: false), ["prepare", "folds", "pages", "indexes"])
        #expect(try await db.ledger.rebuilder().run(verify: true).differences.isEmpty)
    }

    /// The report accounts for its time phase by phase, in order, within the whole.
    static func expectPhases(_ report: Rebuilder.Report, _ names: [String]) {
        #expect(report.phases.map(\.name) == names)
        #expect(report.phases.allSatisfy { $0.seconds >= 0 })
        #expect(report.phases.reduce(0) { $0 + $1.seconds } <= report.seconds)
    }

    @Test("the pushledger rebuild command exits non-zero on a mismatch and zero otherwise")
    func rebuildCommand() async throws {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "a", appId: "appC")
        try await Self.randomWorkload(db, appId: "appC", operations: 200, seed: 1)
        let ok = try ServerProcess.command(["rebuild", "--verify"], databaseURL: db.url)
        #expect(ok.status == 0, "\(ok.output)")
        #expect(ok.output.contains("verified"))
        #expect(ok.output.contains("rebuild phases: prepare "), "\(ok.output)")
        try await db.ledger.pool.query(
            "DELETE FROM installations WHERE object_id = (SELECT min(object_id) FROM installations)")
        let bad = try ServerProcess.command(["rebuild", "--verify"], databaseURL: db.url)
        #expect(bad.status != 0)
        #expect(bad.output.contains("MISMATCH"))
    }
}

/// SplitMix64: a tiny deterministic generator for reproducible workloads.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
