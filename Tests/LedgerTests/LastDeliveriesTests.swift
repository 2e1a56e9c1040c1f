import Foundation
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

@testable import Ledger

/// `last_deliveries` (which push reached each installation last) is rewritten for every device a push
/// reaches again; migration 0014 leaves room on its pages so those rewrites stay where the row is. A batch's
/// rows are written by `LastDeliveries.remember`: an UPDATE over the batch's range, a plain INSERT of the
/// new ones, and an upsert when that INSERT meets a row another transaction created meanwhile.
@Suite("Last deliveries", .requiresPostgreSQL)
struct LastDeliveriesTests {
    @Test("a second push to the same devices rewrites their rows in place, naming the newer push")
    func rewrittenInPlace() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "x", appId: "lastdel")
        let t0 = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        // About four full pages of rows at the default fillfactor: rows on full pages would have to move.
        let devices = 300
        _ = try await db.saveIOSInstallations(app: app.appId, count: devices, now: t0 - 60)
        let body: JSON = ["channels": ["all"], "data": ["alert": "hi"]]
        let first = try await SimulatedPushes.push(body, app: app, at: t0, db.ledger)
        try await SimulatedPushes.deliverPending(at: t0, db.ledger)
        let before = try await pages(db)
        #expect(before.count == devices)

        let second = try await SimulatedPushes.push(body, app: app, at: t0 + 60, db.ledger)
        try await SimulatedPushes.deliverPending(at: t0 + 60, db.ledger)
        let after = try await pages(db)
        #expect(Set(after.values.map(\.push)) == [second])
        #expect(Set(before.values.map(\.push)) == [first])
        let stayed = after.filter { id, row in before[id]?.page == row.page }.count
        // At the default fillfactor (full pages) none of them stays.
        #expect(stayed >= devices * 9 / 10, "\(stayed) of \(devices) rows stayed on their page")
    }

    @Test("one batch rewrites the rows it finds, creates the missing ones and keeps a later delivery")
    func rewritesCreatesAndKeepsLater() async throws {
        let db = try await TestDatabase.make()
        let conn = try await db.connect()
        defer { Task { await conn.close() } }
        try await seed(
            conn,
            [
                ("a2", "old", "2026-01-01T00:00:00Z"), ("a4", "later", "2026-03-01T00:00:00Z"),
                ("b9", "old", "2026-01-01T00:00:00Z"),
            ])
        try await conn.query("BEGIN")
        try await LastDeliveries.remember(
            appId: "app", pushId: "new", objectIds: ["a1", "a2", "a3", "a4"], at: "2026-02-01T00:00:00Z", on: conn)
        try await conn.query("COMMIT")
        // Hand-written: a1 and a3 are new, a2 is rewritten, a4 names a later push, b9 was not in the batch.
        #expect(
            try await rows(conn) == [
                "a1": "new", "a2": "new", "a3": "new", "a4": "later", "b9": "old",
            ])
    }

    @Test("ids out of the database's order still end up right")
    func unorderedIds() async throws {
        let db = try await TestDatabase.make()
        let conn = try await db.connect()
        defer { Task { await conn.close() } }
        try await seed(conn, [("c1", "old", "2026-01-01T00:00:00Z"), ("c3", "old", "2026-01-01T00:00:00Z")])
        try await conn.query("BEGIN")
        // The first and last ids bound an empty range: both existing rows look new to the plain INSERT.
        try await LastDeliveries.remember(
            appId: "app", pushId: "new", objectIds: ["c3", "c2", "c1"], at: "2026-02-01T00:00:00Z", on: conn)
        try await conn.query("COMMIT")
        #expect(try await rows(conn) == ["c1": "new", "c2": "new", "c3": "new"])
    }

    @Test("a row another transaction creates meanwhile sends the batch to the upsert, in the same transaction")
    func concurrentCreation() async throws {
        let db = try await TestDatabase.make()
        let other = try await db.connect()
        let conn = try await db.connect()
        defer {
            Task {
                await other.close()
                await conn.close()
            }
        }
        try await other.query("BEGIN")
        try await other.query(
            """
            INSERT INTO last_deliveries (app_id, installation_id, push_id, delivered_at)
            VALUES ('app', 'd2', 'other', '2026-01-15T00:00:00Z')
            """)
        let pid = try await conn.query("SELECT pg_backend_pid() AS pid")[0].int("pid")
        let recording = Task {
            try await conn.query("BEGIN")
            try await conn.query(
                "INSERT INTO last_deliveries VALUES ('app', 'd0', 'before', '2026-01-01T00:00:00Z')")
            try await LastDeliveries.remember(
                appId: "app", pushId: "new", objectIds: ["d1", "d2", "d3"], at: "2026-02-01T00:00:00Z", on: conn)
            try await conn.query("COMMIT")
        }
        // The plain INSERT waits for the other transaction's row to commit or go before it can check d2.
        let watcher = try await db.connect()
        defer { Task { await watcher.close() } }
        var waiting = false
        for _ in 0..<200 where !waiting {
            waiting =
                try await watcher.query(
                    "SELECT 1 AS one FROM pg_stat_activity WHERE pid = \(pid) AND wait_event_type = 'Lock'"
                ).count == 1
            if !waiting { try await Task.sleep(for: .milliseconds(25)) }
        }
        #expect(waiting, "the batch's INSERT never waited on the other transaction's row")
        try await other.query("COMMIT")
        try await recording.value
        // d2 was delivered by the other push earlier than by this one; the statement before the savepoint stays.
        #expect(try await rows(conn) == ["d0": "before", "d1": "new", "d2": "new", "d3": "new"])
    }

    private func seed(_ conn: PGConnection, _ rows: [(id: String, push: String, at: String)]) async throws {
        for row in rows {
            try await conn.query(
                """
                INSERT INTO last_deliveries (app_id, installation_id, push_id, delivered_at)
                VALUES ('app', \(row.id), \(row.push), \(row.at)::timestamptz)
                """)
        }
    }

    /// Installation to the push its row names, for the app "app".
    private func rows(_ conn: PGConnection) async throws -> [String: String] {
        var rows: [String: String] = [:]
        for row in try await conn.query("SELECT installation_id, push_id FROM last_deliveries WHERE app_id = 'app'") {
            rows[try row.string("installation_id")] = try row.string("push_id")
        }
        return rows
    }

    /// Each installation's row: the heap page it is on and the push it names.
    private func pages(_ db: TestDatabase) async throws -> [String: (page: Int, push: String)] {
        let conn = try await db.connect()
        defer { Task { await conn.close() } }
        var rows: [String: (page: Int, push: String)] = [:]
        for row in try await conn.query(
            "SELECT installation_id, (ctid::text::point)[0]::int AS page, push_id FROM last_deliveries")
        {
            rows[try row.string("installation_id")] = (try row.int("page"), try row.string("push_id"))
        }
        return rows
    }
}
