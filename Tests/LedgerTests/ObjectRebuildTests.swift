import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// Issue 16: objects of other classes are projections of their events like installations, so `rebuild --verify`
/// reproduces `objects` and `class_fields` exactly; a refused write appends nothing.
@Suite("Objects rebuild", .requiresPostgreSQL)
struct ObjectRebuildTests {
    let meta = EventMetadata(keyKind: "client", address: "127.0.0.1", userAgent: "test")

    /// Concurrent creates, updates (sets, `__op`s, unsets) and deletes of users and teams, seeded.
    func workload(_ db: TestDatabase, appId: String, seed: UInt64) async throws {
        let store = db.ledger.objects
        let meta = meta
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    var rng = SeededRandom(seed: seed &+ UInt64(worker))
                    var mine: [(String, String)] = []
                    for _ in 0..<60 {
                        let className = rng.next() % 2 == 0 ? "_User" : "Team"
                        switch rng.next() % 8 {
                        case 0...3:
                            let body: [String: JSON] = [
                                "name": .string("n\(rng.next() % 50)"), "score": .int(Int64(rng.next() % 100)),
                                "location": [
                                    "__type": "GeoPoint", "latitude": .double(Double(rng.next() % 180) - 90),
                                    "longitude": .double(Double(rng.next() % 360) - 180),
                                ],
                                "field\(rng.next() % 5)": .string("x"),
                            ]
                            let created = try await store.create(
                                appId: appId, className: className, body: body, metadata: meta)
                            mine.append((className, created.objectId))
                        case 4...6 where !mine.isEmpty:
                            let (className, id) = mine[Int(rng.next() % UInt64(mine.count))]
                            let body: [String: JSON] = [
                                "score": ["__op": "Increment", "amount": 3],
                                "tags": ["__op": "AddUnique", "objects": [.string("t\(rng.next() % 3)")]],
                                "name": rng.next() % 2 == 0 ? "renamed" : ["__op": "Delete"],
                            ]
                            _ = try await store.update(
                                appId: appId, className: className, objectId: id, body: body, metadata: meta)
                        case 7 where !mine.isEmpty:
                            let (className, id) = mine.remove(at: Int(rng.next() % UInt64(mine.count)))
                            try await store.delete(appId: appId, className: className, objectId: id, metadata: meta)
                        default:
                            break
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("rebuild --verify reproduces objects and class_fields after concurrent changes, and catches tampering")
    func rebuildIdentical() async throws {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "o", appId: "objA")
        try await workload(db, appId: "objA", seed: 16)
        #expect(try await db.ledger.pool.query("SELECT count(*) AS n FROM objects")[0].int("n") > 20)
        let types = try await db.ledger.objectQueries.fieldTypes(appId: "objA", className: "Team")
        #expect(types["location"] == .geoPoint && types["score"] == .number && types["tags"] == .array)

        let report = try await db.ledger.rebuilder().run(verify: true)
        #expect(report.differences.isEmpty, "\(report.differences)")

        try await db.ledger.pool.query("DELETE FROM class_fields WHERE field = 'score'")
        let tampered = try await db.ledger.rebuilder().run(verify: true)
        #expect(tampered.differences.map(\.table) == ["class_fields"])
        _ = try await db.ledger.rebuilder().run(verify: false)
        #expect(try await db.ledger.rebuilder().run(verify: true).differences.isEmpty)
    }

    @Test("a type clash or a bad GeoPoint is code 111 and appends no event")
    func refusedWritesAppendNothing() async throws {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "o", appId: "objB")
        let store = db.ledger.objects
        let team = try await store.create(
            appId: "objB", className: "Team", body: ["city": "Beijing"], metadata: meta)
        let before = try await db.eventCount()
        await #expect(throws: LeanError(111, "Invalid value type for field 'city', expected String but got Number")) {
            _ = try await store.create(appId: "objB", className: "Team", body: ["city": 3], metadata: meta)
        }
        await #expect(throws: TypedValue.invalidGeoPoint) {
            _ = try await store.update(
                appId: "objB", className: "Team", objectId: team.objectId,
                body: ["loc": ["__type": "GeoPoint", "latitude": 200, "longitude": 0]], metadata: meta)
        }
        #expect(try await db.eventCount() == before)
        let stored = try await db.ledger.objectQueries.get(appId: "objB", className: "Team", objectId: team.objectId)
        #expect(stored?.fields == ["city": "Beijing"])
    }

    @Test("concurrent first values of one field: one type wins, every other write is code 111 and stores nothing")
    func concurrentFirstValues() async throws {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "o", appId: "objC")
        let store = db.ledger.objects
        let meta = meta
        // Open the pool's connections first, so that the racing writes really overlap.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    _ = try await store.create(appId: "objC", className: "Warm", body: ["w": 1], metadata: meta)
                }
            }
            try await group.waitForAll()
        }
        let outcomes = try await withThrowingTaskGroup(of: (JSON, Bool).self) { group in
            for i in 0..<24 {
                group.addTask {
                    let value: JSON = i % 2 == 0 ? .string("s\(i)") : .int(Int64(i))
                    do {
                        _ = try await store.create(appId: "objC", className: "Race", body: ["x": value], metadata: meta)
                        return (value, true)
                    } catch let error as LeanError where error.code == 111 {
                        return (value, false)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let types = try await db.ledger.objectQueries.fieldTypes(appId: "objC", className: "Race")
        let winner = try #require(types["x"])
        #expect(winner == .string || winner == .number)
        // Exactly the values of the winning type were stored, and all of them.
        #expect(outcomes.allSatisfy { FieldType(of: $0.0) == winner ? $0.1 : !$0.1 })
        let stored = try await db.ledger.pool.query("SELECT count(*) AS n FROM objects WHERE class_name = 'Race'")
        #expect(try stored[0].int("n") == 12)
        #expect(try await db.ledger.rebuilder().run(verify: true).differences.isEmpty)
    }
}
