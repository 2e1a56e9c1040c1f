import Foundation
import HTTP2TestSupport
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

@Suite("Event log integrity", .requiresPostgreSQL)
struct EventLogIntegrityTests {
    @Test("the database refuses UPDATE, DELETE and TRUNCATE on the log")
    func appendOnly() async throws {
        let db = try await TestDatabase.make()
        try await db.ledger.apps.create(name: "a", appId: "a1")
        for statement in ["UPDATE events SET type = 'X'", "DELETE FROM events", "TRUNCATE events"] {
            await #expect(throws: PGError.self) { try await db.ledger.pool.query(PGQuery(unsafeSQL: statement)) }
        }
        #expect(try await db.eventCount() == 1)
    }

    @Test("a lost race on a stream version is a VersionConflict, not a server error")
    func versionConflict() async throws {
        let db = try await TestDatabase.make()
        let store = db.ledger.events
        try await store.write(appId: "a", metadata: .system("t"), lockKeys: ["s"]) { tx in
            try await tx.append(stream: "s", expectedVersion: 0, [NewEvent.noise()])
        }
        await #expect(throws: VersionConflict.self) {
            try await store.write(appId: "a", metadata: .system("t"), lockKeys: ["s"]) { tx in
                try await tx.append(stream: "s", expectedVersion: 0, [NewEvent.noise()])
            }
        }
        #expect(try await db.eventCount() == 1)
    }

    @Test("events appended in one statement keep their own data and order, whatever characters it holds")
    func appendedDataRoundTrips() async throws {
        let db = try await TestDatabase.make()
        // Written by hand as the JSON each event's fields must equal: quotes, backslashes, brackets and commas
        // that would end an element of the statement's list, non-ASCII text, nesting, an empty object.
        let expected = [
            #"{"a": "say \"hi\"", "b": "C:\\dir\\", "c": "], [\"x\"], ["}"#,
            #"{"é": "ü 中文 🎉", "n": [1, 2.5, {"k": null}], "t": true}"#,
            #"{}"#,
        ]
        let events = try expected.enumerated().map { i, text in
            let fields = try #require(try JSON.parse(text).objectValue)
            return NewEvent(
                .created(
                    ObjectCreated(
                        className: "T", objectId: "o\(i)", fields: fields, types: [:], at: "2026-01-01T00:00:00.000Z")))
        }
        try await db.ledger.events.write(appId: "a", metadata: .system("t"), lockKeys: ["s", "u"]) { tx in
            try await LedgerTransaction.append([
                .init(tx, stream: "s", expectedVersion: 0, events: Array(events[0...1])),
                .init(tx, stream: "u", expectedVersion: 0, events: [events[2]]),
            ])
        }
        let rows = try await db.ledger.pool.query(
            """
            SELECT stream, version, data -> 'fields' = (\(expected)::text[])[i]::jsonb AS same
            FROM (SELECT *, row_number() OVER (ORDER BY position) AS i FROM events WHERE app_id = 'a') e
            ORDER BY position
            """)
        #expect(try rows.map { "\(try $0.string("stream")) \(try $0.int("version"))" } == ["s 1", "s 2", "u 1"])
        #expect(try rows.allSatisfy { try $0.bool("same") })
    }

    @Test("taking a stream lock after the transaction wrote is refused")
    func lockAfterWriteIsRefused() async throws {
        let db = try await TestDatabase.make()
        await #expect(throws: StreamLockOrderViolation.self) {
            try await db.ledger.events.write(appId: "a", metadata: .system("t"), lockKeys: ["s"]) { tx in
                try await tx.append(stream: "s", expectedVersion: 0, [NewEvent.noise()])
                try await tx.lock(["other"])
            }
        }
        #expect(try await db.eventCount() == 0)
    }

    @Test("migrations are idempotent and a changed applied migration is refused")
    func migrations() async throws {
        let db = try await TestDatabase.make(migrate: false)
        let migrator = PGMigrator(pool: db.ledger.pool)
        let m1 = PGMigration(version: 9001, name: "one", sql: "CREATE TABLE t1 (x int)")
        #expect(try await migrator.migrate([m1]) == [9001])
        #expect(try await migrator.migrate([m1]) == [])
        let changed = PGMigration(version: 9001, name: "one", sql: "CREATE TABLE t1 (x bigint)")
        await #expect(throws: PGMigrator.Failure.self) { try await migrator.migrate([changed]) }
        // The real migrations apply cleanly on top and twice.
        #expect(try await LedgerMigrations.migrate(pool: db.ledger.pool).isEmpty == false)
        #expect(try await LedgerMigrations.migrate(pool: db.ledger.pool).isEmpty)
    }

    @Test("LISTEN/NOTIFY wakes the fan-out when a push stream changes, and only then")
    func notifyOnAppend() async throws {
        let db = try await TestDatabase.make()
        let listener = PGListener(url: db.url, channels: [EventStore.notifyChannel])
        defer { listener.stop() }
        let notes = listener.notifications()
        let received = try await withThrowingTaskGroup(of: [PGNotification].self) { group in
            group.addTask {
                var seen: [PGNotification] = []
                for await note in notes {
                    seen.append(note)
                    if note.channel == EventStore.notifyChannel { break }
                }
                return seen
            }
            group.addTask {
                try await Task.sleep(for: .seconds(30))
                throw CancellationError()
            }
            // Wait for the listener to be connected before appending.
            try await Task.sleep(for: .milliseconds(500))
            // Its thread is named for top -H and perf (within the 15 bytes a system thread's name may have).
            #expect(await SystemThreads.count(named: "pg-listen", atLeast: 1) >= 1)
            // An installation-only append does not notify (it would serialise commits for nobody) …
            try await db.ledger.events.write(appId: "notify1", metadata: .system("t"), lockKeys: ["installation:x"]) {
                tx in
                try await tx.append(stream: "installation:x", expectedVersion: 0, [NewEvent.noise()])
            }
            // … a push append does.
            let app = try await db.ledger.apps.create(name: "n", appId: "notify2")
            let request = try PushRequest.parse(
                ["channels": ["c"], "data": ["alert": "x"]], devicesEndpoint: false, headerProd: nil, now: Date())
            _ = try await db.ledger.pushes.request(request, app: app, metadata: .system("t"))
            let first = try await group.next()!
            group.cancelAll()
            return first
        }
        let payloads = received.filter { $0.channel == EventStore.notifyChannel }.map(\.payload)
        #expect(payloads == ["notify2"])
    }

    @Test("a push stream is appended to only through the push lifecycle; nothing of a refused write stays")
    func pushStreamAppendIsRefused() async throws {
        let db = try await TestDatabase.make()
        await #expect(throws: LedgerTransaction.PushStreamAppendRefused.self) {
            try await db.ledger.events.write(appId: "stray", metadata: .system("t"), lockKeys: ["push:x", "other"]) {
                tx in
                try await tx.append(stream: "other", expectedVersion: 0, [NewEvent.noise()])
                // A push event can only be made inside the lifecycle's interpreter (`NewEvent(PushLogEvent)` is
                // internal, and the string form refuses typed kinds); any other event on a push stream is refused.
                try await tx.append(
                    stream: "push:x", expectedVersion: 0,
                    [NewEvent(.badgeReset(BadgeChanged(objectId: "x", resetAt: "2026-01-01T00:00:00.000Z")))])
            }
        }
        let rows = try await db.ledger.pool.query("SELECT count(*) AS n FROM events WHERE app_id = 'stray'")
        #expect(try rows[0].int("n") == 0)
    }

    @Test("COPY loads rows in bulk with escaping")
    func copyIn() async throws {
        let db = try await TestDatabase.make()
        try await db.ledger.pool.withConnection { conn in
            try await conn.query("CREATE TABLE c (a text, b text)")
            try await conn.copyIn(
                "COPY c (a, b) FROM STDIN",
                lines: (0..<1000).map { PGCopy.line(["r\($0)", "tab\there\\ \n"]) } + [PGCopy.line([nil, "x"])])
            let rows = try await conn.query("SELECT count(*) AS n, count(a) AS na, max(b) AS b FROM c")[0]
            #expect(try rows.int("n") == 1001)
            #expect(try rows.int("na") == 1000)
            #expect(rows["b"] == "x")
            let sample = try await conn.query("SELECT b FROM c WHERE a = 'r7'")[0]
            #expect(sample["b"] == "tab\there\\ \n")
        }
    }
}
