import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// The event log's day partitions (sql/0011): made ahead, the default partition drained, old days dropped
/// whole by log retention, and the stream-version guarantee kept across days.
@Suite("Event log partitions", .requiresPostgreSQL)
struct EventLogPartitionTests {
    /// Appends `count` events of `stream` at `daysAgo` days before now, straight into the log (the
    /// application always writes at the database's clock).
    static func insert(
        _ db: TestDatabase, stream: String, daysAgo: Int, from version: Int = 1, count: Int = 3
    )
        async throws
    {
        try await db.ledger.pool.query(
            """
            INSERT INTO events (app_id, stream, version, type, data, metadata, recorded_at)
            SELECT 'p', \(stream), \(version) + g, 'TestNoise', '{}', '{}', now() - \(daysAgo) * interval '1 day'
            FROM generate_series(0, \(count - 1)) g ORDER BY g
            """)
    }

    static func partition(_ db: TestDatabase, of stream: String) async throws -> [String] {
        try await db.ledger.pool.query(
            "SELECT DISTINCT tableoid::regclass::text AS p FROM events WHERE app_id = 'p' AND stream = \(stream)"
        ).map { try $0.string("p") }
    }

    @Test("a row without a day partition lands in the default one and is moved to its day, position unchanged")
    func defaultPartitionIsDrained() async throws {
        let db = try await TestDatabase.make()
        try await Self.insert(db, stream: "future", daysAgo: -30)
        #expect(try await Self.partition(db, of: "future") == ["events_default"])
        let positions = "SELECT array_agg(position ORDER BY position)::text AS p FROM events WHERE stream = 'future'"
        let before = try await db.ledger.pool.query(PGQuery(unsafeSQL: positions))[0].string("p")
        let days = try await EventLogPartitions(pool: db.ledger.pool).prepare()
        #expect(days == EventLogPartitions.daysAhead + 2)
        let day = try await db.ledger.pool.query(
            "SELECT 'events_' || to_char((now() AT TIME ZONE 'UTC') + interval '30 days', 'YYYYMMDD') AS d")[0]
        #expect(try await Self.partition(db, of: "future") == [try day.string("d")])
        #expect(try await db.ledger.pool.query(PGQuery(unsafeSQL: positions))[0].string("p") == before)
        #expect(try await db.ledger.pool.query("SELECT count(*) AS n FROM events_default")[0].int("n") == 0)
    }

    @Test("a stale expected version conflicts though the version it clashes with is in an older day")
    func versionsAreUniqueAcrossDays() async throws {
        let db = try await TestDatabase.make()
        try await Self.insert(db, stream: "s", daysAgo: 3)
        try await EventLogPartitions(pool: db.ledger.pool).prepare()
        await #expect(throws: VersionConflict.self) {
            try await db.ledger.events.write(appId: "p", metadata: .system("t"), lockKeys: ["s"]) { tx in
                try await tx.append(stream: "s", expectedVersion: 1, [NewEvent.noise()])
            }
        }
        // Two appends of one version in one statement are refused too.
        await #expect(throws: VersionConflict.self) {
            try await db.ledger.events.write(appId: "p", metadata: .system("t"), lockKeys: ["t"]) { tx in
                try await LedgerTransaction.append([
                    .init(tx, stream: "t", expectedVersion: 0, events: [NewEvent.noise()]),
                    .init(tx, stream: "t", expectedVersion: 0, events: [NewEvent.noise()]),
                ])
            }
        }
        try await db.ledger.events.write(appId: "p", metadata: .system("t"), lockKeys: ["s"]) { tx in
            #expect(try await tx.currentVersion(of: "s") == 3)
            try await tx.append(stream: "s", expectedVersion: 3, [NewEvent.noise()])
        }
        #expect(try await db.eventCount() == 4)
    }

    @Test("two writers racing for one stream version without stream locks: the second waits, then conflicts")
    func racingWritersConflict() async throws {
        let db = try await TestDatabase.make()
        let insert: PGQuery =
            "INSERT INTO events (app_id, stream, version, type, data, metadata) VALUES ('p', 'r', 1, 'T', '{}', '{}')"
        let first = try await db.connect()
        let second = try await db.connect()
        try await first.query("BEGIN")
        try await first.query(insert)
        let racing = Task { try await second.query(insert) }
        try await Task.sleep(for: .milliseconds(300))
        try await first.query("COMMIT")
        do {
            _ = try await racing.value
            Issue.record("the second append of version 1 was accepted")
        } catch let error as PGError {
            #expect(error.isUniqueViolation)
            #expect(error.constraint == "events_app_id_stream_version_key")
        }
        #expect(try await db.eventCount() == 1)
        await first.close()
        await second.close()
    }

    @Test("log retention drops whole days older than the window, keeps the rest, and streams go on")
    func retentionDropsOldDays() async throws {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "p", appId: "p")
        try await Self.insert(db, stream: "old", daysAgo: 120)
        try await Self.insert(db, stream: "old", daysAgo: 100, from: 4)
        try await Self.insert(db, stream: "recent", daysAgo: 89)
        let job = RetentionJob(store: db.ledger.events, logRetentionDays: 90)
        let report = try await job.run()
        #expect(report.droppedLogPartitions == 2)
        #expect(try await Self.partition(db, of: "old") == [])
        #expect(try await Self.partition(db, of: "recent").count == 1)
        #expect(try await db.ledger.pool.query("SELECT count(*) AS n FROM event_log_trims")[0].int("n") == 2)
        // The stream whose events were all dropped goes on from its last version, not from 1.
        try await db.ledger.events.write(appId: "p", metadata: .system("t"), lockKeys: ["old"]) { tx in
            #expect(try await tx.currentVersion(of: "old") == 6)
            try await tx.append(stream: "old", expectedVersion: 6, [NewEvent.noise()])
        }
        // The log no longer holds every stream's beginning: a rebuild from it is refused.
        await #expect(throws: Rebuilder.LogTrimmed.self) { try await db.ledger.rebuilder().run(verify: true) }
        #expect(try await job.run().droppedLogPartitions == 0)
        // A run "as if" months later drops nothing more: the log's days are measured by the real clock.
        #expect(try await job.run(now: Date().addingTimeInterval(200 * 86400)).droppedLogPartitions == 0)
        #expect(try await Self.partition(db, of: "recent").count == 1)
        // Without a window nothing is dropped.
        try await Self.insert(db, stream: "older", daysAgo: 400)
        #expect(try await RetentionJob(store: db.ledger.events).run().droppedLogPartitions == 0)
        #expect(try await Self.partition(db, of: "older").count == 1)
    }

    @Test("a day partition refuses TRUNCATE, UPDATE and DELETE like the log itself")
    func partitionsAreAppendOnly() async throws {
        let db = try await TestDatabase.make()
        _ = try await db.ledger.apps.create(name: "p", appId: "p")
        let day = try await db.ledger.pool.query("SELECT tableoid::regclass::text AS p FROM events")[0].string("p")
        for statement in ["TRUNCATE \(day)", "DELETE FROM \(day)", "UPDATE \(day) SET type = 'X'"] {
            await #expect(throws: PGError.self) { try await db.ledger.pool.query(PGQuery(unsafeSQL: statement)) }
        }
        #expect(try await db.eventCount() == 1)
    }
}
