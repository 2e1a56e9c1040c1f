import Foundation
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

@testable import Ledger

/// `event_time_outliers` (migration 0018): the rows whose own time lies more than a day after they were
/// recorded, by app and UTC day of `recorded_at`, kept by the append trigger and filled for a log that
/// predates it.
@Suite("Event time outliers", .requiresPostgreSQL)
struct EventTimeOutliersTests {
    /// Appends one event straight into the log, recorded at `recordedAt`, with `data`.
    static func insert(
        _ pool: PGPool, app: String = "p", stream: String, recordedAt: String, data: String
    ) async throws {
        try await pool.query(
            """
            INSERT INTO events (app_id, stream, version, type, data, metadata, recorded_at)
            VALUES (\(app), \(stream), 1, 'TestNoise', \(data)::jsonb, '{}', \(recordedAt)::timestamptz)
            """)
    }

    /// Rows dated exactly a day after, before, and more than a day after their recording, in two apps and
    /// two statements on one day, so the second merges into the first's row.
    static func appendMixedDates(_ pool: PGPool) async throws {
        try await insert(
            pool, stream: "exact", recordedAt: "2025-03-05 10:00:00+00", data: #"{"at": "2025-03-06T10:00:00Z"}"#)
        try await insert(
            pool, stream: "past", recordedAt: "2025-03-07 09:00:00+00", data: #"{"at": "2025-01-01T00:00:00Z"}"#)
        try await insert(
            pool, stream: "late", recordedAt: "2025-03-05 10:00:00+00",
            data: #"{"updatedAt": "2025-03-06T10:00:00.001Z"}"#)
        try await insert(
            pool, stream: "later", recordedAt: "2025-03-05 08:00:00.25+00",
            data: #"{"createdAt": "2025-04-01T00:00:00+08:00"}"#)
        try await insert(
            pool, app: "q", stream: "q", recordedAt: "2025-03-05 23:59:59+00", data: #"{"at": "2025-03-20T00:00:00Z"}"#)
    }

    /// The table's rows as `app|day|earliest recorded_at|latest event time`, in UTC.
    static func outliers(_ pool: PGPool) async throws -> [String] {
        try await pool.query(
            """
            SELECT concat_ws('|', app_id, recorded_day, to_char(earliest_recorded_at AT TIME ZONE 'UTC',
                             'YYYY-MM-DD HH24:MI:SS.US'), to_char(latest_event_time AT TIME ZONE 'UTC',
                             'YYYY-MM-DD HH24:MI:SS.US')) AS o
            FROM event_time_outliers ORDER BY app_id, recorded_day
            """
        ).map { try $0.string("o") }
    }

    /// Worked out by hand from `appendMixedDates`: on 5 March app p has two rows more than a day late (10:00
    /// dated a day and a millisecond later, 08:00:00.25 dated 31 March 16:00 UTC); the row dated exactly a day
    /// later and the one dated earlier are not outliers; app q's row is on 5 March too.
    static let expected = [
        "p|2025-03-05|2025-03-05 08:00:00.250000|2025-03-31 16:00:00.000000",
        "q|2025-03-05|2025-03-05 23:59:59.000000|2025-03-20 00:00:00.000000",
    ]

    @Test("appends list the rows dated more than a day after their recording, per app and day")
    func appendsListLateRows() async throws {
        let db = try await StreamSpanTests.databaseWithDays()
        let pool = db.ledger.pool
        // What the stores append is dated when it is written: nothing to list.
        _ = try await db.ledger.apps.create(name: "p", appId: "p", appKey: "k", masterKey: "m")
        _ = try await db.ledger.installations.save(
            appId: "p", body: ["deviceType": "android", "installationId": "iid"],
            metadata: EventMetadata(keyKind: "client"))
        #expect(try await Self.outliers(pool).isEmpty)

        try await Self.appendMixedDates(pool)
        #expect(try await Self.outliers(pool) == Self.expected)
    }

    @Test("0018 lists the outliers already in a populated log, and appends go on listing them")
    func migrationListsExistingOutliers() async throws {
        let db = try await TestDatabase.make(migrate: false)
        let pool = db.ledger.pool
        try await PGMigrator(pool: pool).migrate(try LedgerMigrations.all().filter { $0.version <= 17 })
        try await StreamSpanTests.makeDays(pool)
        try await Self.appendMixedDates(pool)

        #expect(try await PGMigrator(pool: pool).migrate(try LedgerMigrations.all()).first == 18)
        #expect(try await Self.outliers(pool) == Self.expected)
        try await Self.insert(
            pool, stream: "after", recordedAt: "2025-03-09 00:00:00+00", data: #"{"at": "2025-03-12T00:00:00Z"}"#)
        #expect(
            try await Self.outliers(pool)
                == [
                    Self.expected[0], "p|2025-03-09|2025-03-09 00:00:00.000000|2025-03-12 00:00:00.000000",
                    Self.expected[1],
                ])
    }
}
