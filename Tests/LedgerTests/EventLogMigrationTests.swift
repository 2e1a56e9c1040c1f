import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// Migration 0011 on a populated database: the log moves into day partitions in place, and nothing a reader
/// or a writer relies on changes (SPEC §7's global order and late-commit guarantee included).
@Suite("Event log migration to day partitions", .requiresPostgreSQL)
struct EventLogMigrationTests {
    /// Every column a reader sees, in the global order readers consume.
    static func log(_ db: TestDatabase) async throws -> [String] {
        try await db.ledger.pool.query(
            """
            SELECT concat_ws('|', position, transaction_id, app_id, stream, version, type, data, metadata,
                             recorded_at) AS e
            FROM events ORDER BY transaction_id, position
            """
        ).map { try $0.string("e") }
    }

    static func read(
        _ db: TestDatabase, after checkpoint: Checkpoint, bounded: Bool
    ) async throws
        -> [RecordedEvent]
    {
        try await db.ledger.pool.withConnection { conn in
            try await db.ledger.events.read(
                after: checkpoint, limit: 100_000, belowOldestRunningTransaction: bounded, on: conn)
        }
    }

    @Test("0011 moves a populated log into day partitions, keeping its order, positions and late commits")
    func migratesPopulatedLog() async throws {
        let db = try await TestDatabase.make(migrate: false)
        let pool = db.ledger.pool
        try await PGMigrator(pool: pool).migrate(try LedgerMigrations.all().filter { $0.version <= 10 })
        let store = db.ledger.events

        // An app and installations written by the application (today), as AppStore.create writes the app.
        try await store.write(appId: "mig", metadata: .system("test"), lockKeys: [AppEvent.stream]) { tx in
            let created = AppCreated(
                name: "mig", appKey: "k", masterKey: "m", settings: [:], createdAt: "2026-01-01T00:00:00.000Z")
            try await tx.append(stream: AppEvent.stream, expectedVersion: 0, [NewEvent(.created(created))])
        }
        let meta = EventMetadata(keyKind: "client")
        var ids: [String] = []
        for i in 0..<20 {
            let body: [String: JSON] = [
                "deviceType": "android", "installationId": .string("iid-\(i)"), "channels": [.string("c\(i % 3)")],
            ]
            ids.append(try await db.ledger.installations.save(appId: "mig", body: body, metadata: meta).objectId)
        }
        _ = try await db.ledger.installations.update(
            appId: "mig", objectId: ids[0], body: ["badge": 3], metadata: meta)
        // Older history over five earlier days (events no projection reads, so the live tables stay a
        // projection of the log), three streams of versions continuing across days.
        try await pool.query(
            """
            INSERT INTO events (app_id, stream, version, type, data, metadata, recorded_at)
            SELECT 'old', 'noise:' || (g % 3), g / 3 + 1, \(NewEvent.noise().type), \(NewEvent.noiseData)::jsonb, '{}',
                   now() - interval '5 days' + g * interval '1 hour'
            FROM generate_series(0, 119) g ORDER BY g
            """)

        // A late commit: this transaction writes first (lower position and transaction id) and stays open
        // while another commits; a projector reading now must stop before both.
        let slow = try await db.connect()
        try await slow.query("BEGIN")
        try await slow.query(
            """
            INSERT INTO events (app_id, stream, version, type, data, metadata)
            VALUES ('late', 'slow', 1, \(NewEvent.noise().type), \(NewEvent.noiseData)::jsonb, '{}')
            """)
        try await store.write(appId: "late", metadata: .system("test"), lockKeys: ["fast"]) { tx in
            try await tx.append(stream: "fast", expectedVersion: 0, [NewEvent.noise()])
        }
        // (The bound is the oldest transaction of the whole cluster, so other tests' may hold it back further.)
        let readBeforeCommit = try await Self.read(db, after: .start, bounded: true)
        #expect(!readBeforeCommit.contains { $0.appId == "late" })
        let checkpoint = readBeforeCommit.last?.checkpoint ?? .start

        try await slow.query("COMMIT")
        await slow.close()
        let before = try await Self.log(db)
        // 0011 first; later migrations (0013…) follow it in the same run.
        #expect(try await LedgerMigrations.migrate(pool: pool).first == 11)

        #expect(try await Self.log(db) == before)
        let written = 1 + 20 + 1 + 120 + 2  // app, creates, update, old days, the late pair
        #expect(before.count == written)
        let partitioned = try await pool.query(
            """
            SELECT count(DISTINCT tableoid) AS days, count(*) FILTER (WHERE tableoid = 'events_default'::regclass)
                AS in_default
            FROM events
            """)[0]
        #expect(try partitioned.int("days") >= 6)
        #expect(try partitioned.int("in_default") == 0)
        // The projector that stopped before the late commit resumes after the migration where it stopped:
        // together its reads are the whole log, in order, once each, the late commit before the later one.
        // (Read without the bound: nothing writes to this database any more, and other tests' transactions
        // elsewhere in the cluster would only delay the read.)
        let resumed = try await Self.read(db, after: checkpoint, bounded: false)
        let logOrder = try await pool.query("SELECT position FROM events ORDER BY transaction_id, position").map {
            try $0.int64("position")
        }
        #expect((readBeforeCommit + resumed).map(\.position) == logOrder)
        #expect(resumed.suffix(2).map(\.stream) == ["slow", "fast"])
        // Stream heads equal the versions in the log.
        let heads = try await pool.query(
            """
            SELECT count(*) AS n FROM (SELECT app_id, stream, max(version) AS version FROM events GROUP BY 1, 2) v
            FULL JOIN stream_heads h USING (app_id, stream, version) WHERE v.stream IS NULL OR h.stream IS NULL
            """)[0]
        #expect(try heads.int("n") == 0)

        // The application still writes: positions go on after the old ones, versions after the old heads.
        let maxBefore = try await pool.query("SELECT max(position) AS p FROM events")[0].int64("p")
        _ = try await db.ledger.installations.update(
            appId: "mig", objectId: ids[1], body: ["badge": 1], metadata: meta)
        let created = try await db.ledger.installations.save(
            appId: "mig", body: ["deviceType": "android", "installationId": "after"], metadata: meta)
        #expect(created.created)
        let newest = try await pool.query(
            "SELECT min(position) AS p FROM events WHERE position > \(maxBefore)")[0].int64("p")
        #expect(newest == maxBefore + 1)
        try await store.write(appId: "old", metadata: .system("test"), lockKeys: ["noise:0"]) { tx in
            #expect(try await tx.currentVersion(of: "noise:0") == 40)
            try await tx.append(stream: "noise:0", expectedVersion: 40, [NewEvent.noise()])
        }
        // A stale expected version is still a conflict, though the clashing version is in another day.
        await #expect(throws: VersionConflict.self) {
            try await store.write(appId: "old", metadata: .system("test"), lockKeys: ["noise:1"]) { tx in
                try await tx.append(stream: "noise:1", expectedVersion: 0, [NewEvent.noise()])
            }
        }
        // And the projections are still exactly a rebuild of the migrated log.
        let report = try await db.ledger.rebuilder().run(verify: true)
        #expect(report.differences.isEmpty)
        #expect(report.events == before.count + 3)
    }
}
