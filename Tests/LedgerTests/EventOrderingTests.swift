import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// Records every event it is given, so tests can see what a projector applied and in which order (`seq`).
struct RecordingProjection: Projection {
    let name = "recording"
    let tables = ["test_applied"]
    func handles(_ eventType: String) -> Bool { true }
    func apply(_ event: ProjectedEvent, on conn: PGConnection, schema: String) async throws {
        try await conn.query(
            "INSERT INTO \(unsafeRaw: schema).test_applied (stream, version) VALUES (\(event.stream), \(event.version))"
        )
    }
}

@Suite("Event log ordering", .requiresPostgreSQL)
struct EventOrderingTests {
    @Test("an event whose transaction commits late is never skipped by a projector")
    func lateCommitIsNeverSkipped() async throws {
        let db = try await TestDatabase.make()
        try await db.ledger.pool.query("CREATE TABLE test_applied (seq bigserial, stream text, version int)")
        let store = db.ledger.events
        let runner = ProjectorRunner(store: store, projection: RecordingProjection())
        let meta = EventMetadata.system("test")

        // T1 appends first (lower position) and holds its transaction open.
        let slow = try await db.connect()
        try await slow.query("BEGIN")
        try await slow.query("SELECT pg_advisory_xact_lock(hashtextextended('app1/slow', 0))")
        let slowPosition = try await slow.query(
            """
            INSERT INTO events (app_id, stream, version, type, data, metadata)
            VALUES ('app1', 'slow', 1, \(NewEvent.noise().type), \(NewEvent.noiseData)::jsonb, '{}') RETURNING position
            """)[0].int64("position")

        // T2 appends later (higher position) and commits at once.
        try await store.write(appId: "app1", metadata: meta, lockKeys: ["fast"]) { tx in
            try await tx.append(stream: "fast", expectedVersion: 0, [NewEvent.noise()])
        }
        // The hazard is real: the later position is visible while the earlier one is not.
        let visible = try await db.ledger.pool.query("SELECT position, stream FROM events ORDER BY position")
        #expect(try visible.map { try $0.string("stream") } == ["fast"])
        #expect(try visible[0].int64("position") > slowPosition)

        // The projector must not move past the running transaction.
        #expect(try await runner.step() == 0)
        try await slow.query("COMMIT")
        try await runner.catchUp()
        // Applied in global order: the slow transaction wrote (and got its transaction id) first.
        let applied = try await db.ledger.pool.query("SELECT stream FROM test_applied ORDER BY seq")
        #expect(try applied.map { try $0.string("stream") } == ["slow", "fast"])
        // Applied once each, even after further steps.
        try await runner.catchUp()
        #expect(try await db.ledger.pool.query("SELECT count(*) AS n FROM test_applied")[0].int("n") == 2)
    }

    @Test("two projector instances sharing a checkpoint apply each event exactly once")
    func concurrentProjectorsApplyOnce() async throws {
        let db = try await TestDatabase.make()
        try await db.ledger.pool.query("CREATE TABLE test_applied (seq bigserial, stream text, version int)")
        let store = db.ledger.events
        for i in 0..<300 {
            try await store.write(appId: "a", metadata: .system("test"), lockKeys: ["s\(i % 7)"]) { tx in
                let v = try await tx.currentVersion(of: "s\(i % 7)")
                try await tx.append(stream: "s\(i % 7)", expectedVersion: v, [NewEvent.noise("\(i)")])
            }
        }
        let a = ProjectorRunner(store: store, projection: RecordingProjection(), batchSize: 17)
        let b = ProjectorRunner(store: store, projection: RecordingProjection(), batchSize: 23)
        async let x: Void = a.catchUp()
        async let y: Void = b.catchUp()
        _ = try await (x, y)
        let rows = try await db.ledger.pool.query(
            "SELECT count(*) AS n, count(DISTINCT (stream, version)) AS d FROM test_applied")[0]
        #expect(try rows.int("n") == 300)
        #expect(try rows.int("d") == 300)
    }

    @Test("appends to one stream are read in version order")
    func streamOrderMatchesGlobalOrder() async throws {
        let db = try await TestDatabase.make()
        let store = db.ledger.events
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<25 {
                        try await store.write(appId: "a", metadata: .system("test"), lockKeys: ["shared"]) { tx in
                            let v = try await tx.currentVersion(of: "shared")
                            try await tx.append(stream: "shared", expectedVersion: v, [NewEvent.noise()])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let events = try await db.ledger.pool.withConnection {
            try await store.read(after: .start, limit: 1000, belowOldestRunningTransaction: false, on: $0)
        }
        #expect(events.map(\.version) == Array(1...200))
    }
}
