import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// The indexes on the objectId of installations' `owner` and `user` Pointers (migrations 0013 and 0015):
/// they hold only installations whose field is a Pointer, and `$inQuery` targeting still finds them.
@Suite("Pointer indexes", .requiresPostgreSQL)
struct PointerIndexTests {
    @Test("only installations with a Pointer are indexed, and an $inQuery audience is planned through the index")
    func partialAndUsed() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "x", appId: "pointers")
        let conn = try await db.connect()
        defer { Task { await conn.close() } }
        // 50,000 installations, every 1,000th owned by user u<k mod 10>; users u0…u9, named n0…n9.
        // Loaded by SQL: this is about the plan, not about ingest.
        try await conn.execute(
            unsafeScript: """
                INSERT INTO objects (app_id, class_name, object_id, data, created_at, updated_at, version)
                SELECT 'pointers', '_User', 'u' || g, jsonb_build_object('name', 'n' || g), now(), now(), 1
                FROM generate_series(0, 9) g;
                INSERT INTO installations (app_id, object_id, data, created_at, updated_at, version)
                SELECT 'pointers', lpad(to_hex(g), 24, '0'),
                    jsonb_build_object('deviceType', 'ios', 'deviceToken', lpad(to_hex(g), 64, '0'))
                    || CASE WHEN g % 1000 = 0 THEN jsonb_build_object('owner', jsonb_build_object(
                           '__type', 'Pointer', 'className', '_User', 'objectId', 'u' || (g / 1000 % 10)))
                       ELSE '{}'::jsonb END,
                    now(), now(), 1
                FROM generate_series(1, 50000) g;
                ANALYZE objects;
                """)
        // The meta page and one leaf: 50 entries. A full index would hold all 50,000 (≈ 40 pages even with
        // its NULL keys deduplicated).
        let size = try await conn.query("SELECT pg_relation_size('installations_owner_pointer') AS bytes")
        let bytes = try size[0].int("bytes")
        #expect(bytes <= 2 * 8192, "the index holds only installations with an owner Pointer, not \(bytes) bytes")
        try await conn.execute(unsafeScript: "ANALYZE installations")

        let whereJSON: JSON = ["owner": ["$inQuery": ["className": "_User", "where": ["name": "n3"]]]]
        let condition = try PushTargeting.targetCondition(app: app, whereJSON: whereJSON, now: Date())
        // g / 1000 % 10 == 3 for g in 1...50,000 with g % 1000 == 0: 3,000, 13,000, …, 43,000.
        let count = try await conn.query("SELECT count(*) AS n FROM installations WHERE \(condition)")
        #expect(try count[0].int("n") == 5)
        let plan = try await conn.query(
            "EXPLAIN (FORMAT JSON) SELECT count(*) AS n FROM installations WHERE \(condition)")
        let text = try plan[0].string("QUERY PLAN")
        #expect(text.contains("installations_owner_pointer"), "\(text)")
    }
}
