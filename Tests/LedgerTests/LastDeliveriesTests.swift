import Foundation
import Ledger
import Postgres
import PushCore
import TestSupport
import Testing

/// `last_deliveries` (which push reached each installation last) is rewritten for every device a push
/// reaches again; migration 0014 leaves room on its pages so those rewrites stay where the row is.
@Suite("Last deliveries", .enabled(if: TestDatabase.isAvailable))
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
