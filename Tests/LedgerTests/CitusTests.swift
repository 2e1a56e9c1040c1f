import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// The log's guarantees on a distributed PostgreSQL (SPEC §7), which break silently if the layout or the SQL gets
/// them wrong: run by `scripts/test-citus` on a coordinator and two workers (`scripts/test` leaves them out).
@Suite("Citus: the distributed log's guarantees", .requiresCitus, .serialized)
struct CitusTests {
    /// The port of the worker that holds `app`'s rows.
    static func worker(of app: String, _ db: TestDatabase) async throws -> Int {
        try await db.ledger.pool.query(
            """
            SELECT n.nodeport FROM pg_dist_placement p JOIN pg_dist_node n USING (groupid)
            WHERE p.shardid = get_shard_id_for_distribution_column('events', \(app)::text)
            """)[0].int("nodeport")
    }

    /// A connection to `port`'s copy of the test database (a worker's, or the coordinator's).
    static func node(_ port: Int, _ db: TestDatabase) async throws -> PGConnection {
        var url = try #require(URLComponents(string: db.url))
        url.port = port
        return try await PGConnection.connect(url: try #require(url.string))
    }

    static func coordinatorPort(_ db: TestDatabase) throws -> Int { try #require(URLComponents(string: db.url)?.port) }

    @Test("two writers racing on one stream: the loser's error reaches the ledger as a VersionConflict")
    func racingWritersConflict() async throws {
        let db = try await TestDatabase.makeDistributed()
        let store = db.ledger.events
        let first = try await db.connect()
        // The first writes without the stream lock, so both reach the append; it holds the stream's new head until
        // it commits, and the second, which locked the stream, waits for that and then finds version 1 taken.
        try await first.query("BEGIN")
        try await first.query(
            """
            INSERT INTO events (app_id, stream, version, type, data, metadata)
            VALUES ('race', 's', 1, \(NewEvent.noise().type), \(NewEvent.noiseData)::jsonb, '{}')
            """)
        let second = Task {
            try await store.write(appId: "race", metadata: .system("t"), lockKeys: ["s"]) { tx in
                try await tx.append(stream: "s", expectedVersion: 0, [NewEvent.noise()])
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        try await first.query("COMMIT")
        await #expect(throws: VersionConflict.self) { try await second.value }
        #expect(
            try await db.ledger.pool.query("SELECT count(*) AS n FROM events WHERE app_id = 'race'")[0].int("n") == 1)
        await first.close()
    }

    @Test("a late commit on the app's worker is not skipped by the app's reader")
    func lateCommitOnWorker() async throws {
        let db = try await TestDatabase.makeDistributed()
        let app = "late"
        let worker = try await Self.worker(of: app, db)
        // The worker's transaction ids are made to run far ahead of the coordinator's, so that a reader comparing
        // the ids of one node with the snapshot of the other would let the late event's successor through first.
        let burner = try await Self.node(worker, db)
        let coordinator = try await Self.node(try Self.coordinatorPort(db), db)
        let next: PGQuery = "SELECT pg_current_xact_id()::text::bigint AS x"
        let lead = try await coordinator.query(next)[0].int64("x") - burner.query(next)[0].int64("x") + 1000
        for _ in 0..<max(0, lead) { try await burner.query(next) }
        await burner.close()

        let slow = try await db.connect()
        try await slow.query("BEGIN")
        try await slow.query("SELECT pushledger_lock_streams(\(app), ARRAY['slow'])")
        try await slow.query(
            """
            INSERT INTO events (app_id, stream, version, type, data, metadata)
            VALUES (\(app), 'slow', 1, \(NewEvent.noise().type), \(NewEvent.noiseData)::jsonb, '{}')
            """)
        try await db.ledger.events.write(appId: app, metadata: .system("t"), lockKeys: ["fast"]) { tx in
            try await tx.append(stream: "fast", expectedVersion: 0, [NewEvent.noise()])
        }
        let whileRunning = try await db.ledger.pool.withConnection { conn in
            try await db.ledger.events.read(appId: app, after: .start, limit: 100, on: conn)
        }
        #expect(whileRunning.isEmpty, "read past a running transaction: \(whileRunning.map(\.stream))")
        try await slow.query("COMMIT")
        await slow.close()
        let after = try await db.ledger.pool.withConnection { conn in
            try await db.ledger.events.read(
                appId: app, after: whileRunning.last?.checkpoint ?? .start, limit: 100, on: conn)
        }
        #expect(after.map(\.stream) == ["slow", "fast"])
        // Each transaction id is the worker's own: higher than every id the coordinator has handed out.
        let coordinatorNext = try await coordinator.query(next)[0].int64("x")
        await coordinator.close()
        #expect(after.allSatisfy { $0.transactionId > UInt64(coordinatorNext) })
    }

    @Test("the stream locks are taken on the app's worker, inside the writing transaction")
    func streamLockWhereTheRowsAre() async throws {
        let db = try await TestDatabase.makeDistributed()
        let app = "locks"
        let worker = try await Self.worker(of: app, db)
        let onWorker = try await Self.node(worker, db)
        let onCoordinator = try await Self.node(try Self.coordinatorPort(db), db)
        let advisory: PGQuery = """
            SELECT count(*) AS n FROM pg_locks
            WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """
        let held = try await db.ledger.events.write(appId: app, metadata: .system("t"), lockKeys: ["s", "t"]) { tx in
            // The locks are queued; this read sends them.
            _ = try await tx.currentVersion(of: "s")
            return (
                worker: try await onWorker.query(advisory)[0].int("n"),
                coordinator: try await onCoordinator.query(advisory)[0].int("n")
            )
        }
        #expect(held.worker == 2)
        #expect(held.coordinator == 0)
        // Released at the commit.
        #expect(try await onWorker.query(advisory)[0].int("n") == 0)
        // And a lock taken after the transaction wrote is refused there, as on one PostgreSQL.
        await #expect(throws: StreamLockOrderViolation.self) {
            try await db.ledger.events.write(appId: app, metadata: .system("t"), lockKeys: ["u"]) { tx in
                try await tx.append(stream: "u", expectedVersion: 0, [NewEvent.noise()])
                try await tx.lock(["v"])
            }
        }
        await onWorker.close()
        await onCoordinator.close()
    }
}
