import Foundation
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

@testable import Ledger

/// Each stream's time span in `stream_heads` (migration 0017), and the stream reads that use it to open only
/// the day partitions the stream's events are in.
@Suite("Stream spans", .requiresPostgreSQL)
struct StreamSpanTests {
    /// A migrated database with day partitions for 1-12 March 2025 (`makeDays`).
    static func databaseWithDays() async throws -> TestDatabase {
        let db = try await TestDatabase.make()
        try await makeDays(db.ledger.pool)
        return db
    }

    /// Day partitions for 1-12 March 2025, far from today's, so that the tests own every day they use.
    static func makeDays(_ pool: PGPool) async throws {
        try await pool.query(
            """
            SELECT count(pushledger_event_partition(d::date)) AS n
            FROM generate_series(date '2025-03-01', date '2025-03-12', interval '1 day') d
            """)
    }

    /// Appends one event of `stream` (app `p`) recorded at `at`, straight into the log.
    static func insert(
        _ pool: PGPool, stream: String, version: Int, at: String, type: String = "TestNoise", data: String = "{}",
        metadata: String = "{}"
    ) async throws {
        try await pool.query(
            """
            INSERT INTO events (app_id, stream, version, type, data, metadata, recorded_at)
            VALUES ('p', \(stream), \(version), \(type), \(data)::jsonb, \(metadata)::jsonb, \(at)::timestamptz)
            """)
    }

    /// Whether `stream`'s span is exactly [first, last] (both NULL when nil).
    static func hasSpan(_ pool: PGPool, _ stream: String, _ first: String?, _ last: String?) async throws -> Bool {
        try await pool.query(
            """
            SELECT first_recorded_at IS NOT DISTINCT FROM \(first)::timestamptz
               AND last_recorded_at IS NOT DISTINCT FROM \(last)::timestamptz AS same
            FROM stream_heads WHERE app_id = 'p' AND stream = \(stream)
            """
        ).first?.bool("same") ?? false
    }

    @Test("appends keep each stream's span exact: earliest and latest recorded_at, also when the clock went back")
    func appendsKeepSpans() async throws {
        let db = try await Self.databaseWithDays()
        let pool = db.ledger.pool
        try await Self.insert(pool, stream: "s", version: 1, at: "2025-03-05 10:00:00+00")
        try await Self.insert(pool, stream: "s", version: 2, at: "2025-03-08 09:30:00.123456+00")
        #expect(try await Self.hasSpan(pool, "s", "2025-03-05 10:00:00+00", "2025-03-08 09:30:00.123456+00"))
        // A later version recorded earlier (the clock stepped back) widens the span's start.
        try await Self.insert(pool, stream: "s", version: 3, at: "2025-03-04 23:59:59.999999+00")
        #expect(try await Self.hasSpan(pool, "s", "2025-03-04 23:59:59.999999+00", "2025-03-08 09:30:00.123456+00"))
        // Two streams in one statement each get their own rows' span.
        try await pool.query(
            """
            INSERT INTO events (app_id, stream, version, type, data, metadata, recorded_at) VALUES
                ('p', 't', 1, 'TestNoise', '{}', '{}', '2025-03-02 01:00:00+00'),
                ('p', 'u', 1, 'TestNoise', '{}', '{}', '2025-03-11 02:00:00+00'),
                ('p', 't', 2, 'TestNoise', '{}', '{}', '2025-03-03 03:00:00+00')
            """)
        #expect(try await Self.hasSpan(pool, "t", "2025-03-02 01:00:00+00", "2025-03-03 03:00:00+00"))
        #expect(try await Self.hasSpan(pool, "u", "2025-03-11 02:00:00+00", "2025-03-11 02:00:00+00"))
        // A refused append (a version already taken) leaves the span as it was.
        await #expect(throws: PGError.self) {
            try await Self.insert(pool, stream: "u", version: 1, at: "2025-03-12 05:00:00+00")
        }
        #expect(try await Self.hasSpan(pool, "u", "2025-03-11 02:00:00+00", "2025-03-11 02:00:00+00"))
    }

    @Test("a stream is read from its span's partitions only: partitions locked outside it do not hold the read up")
    func readsOpenOnlyTheSpan() async throws {
        let db = try await Self.databaseWithDays()
        let pool = db.ledger.pool
        try await Self.insert(pool, stream: "installation:i1", version: 1, at: "2025-03-05 10:00:00+00")
        try await Self.insert(pool, stream: "installation:i1", version: 2, at: "2025-03-07 11:00:00+00")
        try await Self.insert(
            pool, stream: PushEvent.stream("p1"), version: 1, at: "2025-03-06 12:00:00+00", type: PushEvent.requested,
            data: #"{"objectId": "p1", "request": {"device_type": "android", "device_ids": ["a", "b"]}}"#,
            metadata: #"{"keyKind": "master", "address": "10.0.0.7"}"#)

        // Another session holds the days before and after the span; the log is otherwise open.
        let holder = try await LockedPartitions.hold(["events_20250302", "events_20250310"], in: db)
        // The control: a read of the stream without its span has to open those days, and waits.
        #expect(
            try await LockedPartitions.failure(
                of: "SELECT count(*) AS n FROM events WHERE app_id = 'p' AND stream = 'installation:i1'", in: db)
                == "55P03")

        let events = try await LockedPartitions.completes(holding: holder) {
            try await db.ledger.events.readStream(appId: "p", stream: "installation:i1")
        }
        #expect(events.map(\.version) == [1, 2])
        let timed = try await LockedPartitions.completes(holding: holder) {
            try await pool.withConnection { try await TimedEvent.stream("installation:i1", appId: "p", on: $0) }
        }
        #expect(timed.map(\.event.version) == [1, 2])
        let origins = try await LockedPartitions.completes(holding: holder) {
            try await db.ledger.pushQueries.origins(appId: "p", pushIds: ["p1", "p2"])
        }
        #expect(
            origins == [
                "p1": PushOrigin(
                    sender: EventMetadata(keyKind: "master", address: "10.0.0.7"), deviceType: "android", deviceIds: 2)
            ])
        // A stream without events has no head: nothing is read.
        #expect(
            try await LockedPartitions.completes(holding: holder) {
                try await db.ledger.events.readStream(appId: "p", stream: "x")
            }
            .isEmpty)
        try await holder.query("ROLLBACK")
        await holder.close()
    }

    @Test(
        "0017 gives every stream of a populated log its span; a stream whose rows were all dropped gets one when appended to"
    )
    func migrationFillsSpans() async throws {
        let db = try await TestDatabase.make(migrate: false)
        let pool = db.ledger.pool
        try await PGMigrator(pool: pool).migrate(try LedgerMigrations.all().filter { $0.version <= 16 })
        try await Self.makeDays(pool)
        try await Self.insert(pool, stream: "a", version: 1, at: "2025-03-02 10:00:00+00")
        try await Self.insert(pool, stream: "a", version: 2, at: "2025-03-09 11:00:00.5+00")
        try await Self.insert(pool, stream: "b", version: 1, at: "2025-03-05 00:00:00+00")
        try await Self.insert(pool, stream: "gone", version: 1, at: "2025-03-01 08:00:00+00")
        try await Self.insert(pool, stream: "gone", version: 2, at: "2025-03-01 09:00:00+00")
        // Log retention drops the first of March whole.
        try await pool.query("SELECT count(*) AS n FROM pushledger_event_partitions_drop('2025-03-02 00:00:00+00')")

        #expect(try await PGMigrator(pool: pool).migrate(try LedgerMigrations.all()).contains(17))
        #expect(try await Self.hasSpan(pool, "a", "2025-03-02 10:00:00+00", "2025-03-09 11:00:00.5+00"))
        #expect(try await Self.hasSpan(pool, "b", "2025-03-05 00:00:00+00", "2025-03-05 00:00:00+00"))
        #expect(try await Self.hasSpan(pool, "gone", nil, nil))
        #expect(try await db.ledger.events.readStream(appId: "p", stream: "a").map(\.version) == [1, 2])
        #expect(try await db.ledger.events.readStream(appId: "p", stream: "gone").isEmpty)
        // The stream goes on from its last version; its span is its new rows'.
        try await Self.insert(pool, stream: "gone", version: 3, at: "2025-03-11 07:00:00+00")
        #expect(try await Self.hasSpan(pool, "gone", "2025-03-11 07:00:00+00", "2025-03-11 07:00:00+00"))
        #expect(try await db.ledger.events.readStream(appId: "p", stream: "gone").map(\.version) == [3])
    }
}
