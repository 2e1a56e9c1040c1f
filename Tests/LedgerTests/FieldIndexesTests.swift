import Foundation
import Ledger
import Postgres
import PushCore
import TestEnvironment
import TestSupport
import Testing

/// Issue 16: the GeoPoint and Pointer fields `class_fields` knows get their indexes, under the expression
/// the where compiler emits (the planner uses them), once, rebuilt when left invalid, one process at a time.
@Suite("Field indexes", .requiresPostgreSQL)
struct FieldIndexesTests {
    let meta = EventMetadata(keyKind: "master", address: "127.0.0.1", userAgent: "test")

    func validIndexes(_ db: TestDatabase) async throws -> [String] {
        try await db.ledger.pool.query(
            """
            SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = 'objects'::regclass AND i.indisvalid
              AND (c.relname LIKE 'objects!_geo!_%' ESCAPE '!' OR c.relname LIKE 'objects!_ptr!_%' ESCAPE '!')
            ORDER BY 1
            """
        ).map { try $0.string("name") }
    }

    @Test("GeoPoint and Pointer fields are indexed once; the compiled $nearSphere uses the index")
    func indexesFollowTheFieldTypes() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "i", appId: "fieldidx")
        let team = try await db.ledger.objects.create(
            appId: app.appId, className: "Team", body: ["city": "Beijing"], metadata: meta)
        let pointer: JSON = ["__type": "Pointer", "className": "Team", "objectId": .string(team.objectId)]
        for n in 0..<50 {
            let spot: JSON = ["__type": "GeoPoint", "latitude": .double(Double(n) / 10), "longitude": 116.3]
            _ = try await db.ledger.objects.create(
                appId: app.appId, className: "Shop", body: ["homeSpot": spot, "team": pointer, "name": "s"],
                metadata: meta)
        }
        let indexes = FieldIndexes(pool: db.ledger.pool)
        #expect(try await indexes.ensure() == ["objects_geo_homeSpot", "objects_ptr_team"])
        #expect(try await validIndexes(db) == ["objects_geo_homeSpot", "objects_ptr_team"])
        #expect(try await indexes.ensure() == [])

        let near: JSON = [
            "homeSpot": [
                "$nearSphere": ["__type": "GeoPoint", "latitude": 1.0, "longitude": 116.3], "$maxDistanceInMiles": 10,
            ]
        ]
        let compiled = try WhereCompiler(schema: .objects, related: RelatedClasses(appId: app.appId, rights: .master))
            .compile(near)
        // Enough rows, spread over the globe, that the planner's choice is the index on its merits. Written
        // straight into the table: this is about the plan, the events do not matter.
        try await db.ledger.pool.query(
            """
            INSERT INTO objects (app_id, class_name, object_id, data, created_at, updated_at, version)
            SELECT \(app.appId), 'Shop', 'bulk' || n,
                jsonb_build_object('homeSpot', jsonb_build_object('__type', 'GeoPoint',
                    'latitude', (n % 170) - 85, 'longitude', (n * 7 % 360) - 180)),
                now(), now(), 1
            FROM generate_series(1, 20000) n
            """)
        try await db.ledger.pool.query("ANALYZE objects")
        let plan = try await db.ledger.pool.withTransaction { conn in
            try await conn.query(
                "EXPLAIN SELECT object_id FROM objects WHERE app_id = \(app.appId) AND \(compiled)"
            ).map { $0[0] ?? "" }.joined(separator: "\n")
        }
        #expect(plan.contains("objects_geo_homeSpot"), "\(plan)")
    }

    @Test("an index left invalid is rebuilt; while another process holds the lock nothing is built")
    func invalidIndexesAreRebuiltAndTheLockIsRespected() async throws {
        let db = try await TestDatabase.make()
        let app = try await db.ledger.apps.create(name: "i", appId: "fieldidx2")
        let spot: JSON = ["__type": "GeoPoint", "latitude": 1.0, "longitude": 2.0]
        _ = try await db.ledger.objects.create(
            appId: app.appId, className: "Shop", body: ["spot": spot], metadata: meta)
        let indexes = FieldIndexes(pool: db.ledger.pool)
        let holder = PGPool(url: db.url, maxConnections: 1)
        let skipped = try await holder.withConnection { conn in
            try await conn.query("SELECT pg_advisory_lock(\(FieldIndexes.lockKey))")
            let built = try await indexes.ensure()
            try await conn.query("SELECT pg_advisory_unlock(\(FieldIndexes.lockKey))")
            return built
        }
        await holder.close()
        #expect(skipped == [])
        #expect(try await indexes.ensure() == ["objects_geo_spot"])
        // What a build interrupted by a crash leaves behind.
        try await db.ledger.pool.query(
            """
            UPDATE pg_index SET indisvalid = false
            WHERE indexrelid = (SELECT oid FROM pg_class WHERE relname = 'objects_geo_spot')
            """)
        #expect(try await validIndexes(db) == [])
        #expect(try await indexes.ensure() == ["objects_geo_spot"])
        #expect(try await validIndexes(db) == ["objects_geo_spot"])
    }
}
