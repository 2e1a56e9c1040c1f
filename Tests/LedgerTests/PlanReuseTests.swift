import Foundation
import Postgres
import TestEnvironment
import TestSupport
import Testing

/// `PGQuery.reusingPlan()`: such statements may keep a generic plan; every other prepared statement is
/// planned for its values at each execution, whatever ran before it on the connection.
@Suite("Plan reuse", .requiresPostgreSQL)
struct PlanReuseTests {
    /// The `plan_cache_mode` a parameterised statement runs under.
    private func mode(_ conn: PGConnection, reusing: Bool) async throws -> String? {
        let query: PGQuery = "SELECT current_setting('plan_cache_mode') AS m, \(1)::int AS one"
        return try await conn.query(reusing ? query.reusingPlan() : query)[0]["m"]
    }

    /// How often the prepared statement for `sql` was planned generically and per execution.
    private func plans(_ conn: PGConnection, _ sql: String) async throws -> (generic: Int, custom: Int) {
        let rows = try await conn.query(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = \(sql)")
        guard let row = rows.first else { return (0, 0) }
        return (try row.int("generic_plans"), try row.int("custom_plans"))
    }

    @Test("marked statements run under plan_cache_mode auto, the rest always under force_custom_plan")
    func modes() async throws {
        let db = try await TestDatabase.make(migrate: false)
        let conn = try await db.connect()
        #expect(try await mode(conn, reusing: false) == "force_custom_plan")
        #expect(try await mode(conn, reusing: true) == "auto")
        #expect(try await mode(conn, reusing: false) == "force_custom_plan")
        // Pipelined, alternating: each statement still gets its own mode.
        try await conn.query("CREATE TABLE seen (n int, m text)")
        for n in 1...4 {
            let insert: PGQuery = "INSERT INTO seen VALUES (\(n), current_setting('plan_cache_mode'))"
            try await conn.enqueue(n.isMultiple(of: 2) ? insert.reusingPlan() : insert)
        }
        try await conn.flush()
        let seen = try await conn.query("SELECT string_agg(m, ',' ORDER BY n) AS ms FROM seen")
        #expect(seen[0]["ms"] == "force_custom_plan,auto,force_custom_plan,auto")
        await conn.close()
    }

    @Test("a rollback or an error that undoes a SET does not leave a statement in the wrong mode")
    func undoneSet() async throws {
        let db = try await TestDatabase.make(migrate: false)
        let conn = try await db.connect()
        struct Boom: Error {}
        // The SET to auto happens inside the transaction, and the rollback undoes it.
        await #expect(throws: Boom.self) {
            try await conn.transaction { conn in
                #expect(try await mode(conn, reusing: true) == "auto")
                throw Boom()
            }
        }
        #expect(try await mode(conn, reusing: true) == "auto")
        // A SET to force_custom_plan inside a transaction that fails on the server.
        await #expect(throws: PGError.self) {
            try await conn.transaction { conn in
                #expect(try await mode(conn, reusing: false) == "force_custom_plan")
                try await conn.query("SELECT 1 / \(0)::int AS boom")
            }
        }
        #expect(try await mode(conn, reusing: false) == "force_custom_plan")
        // A pipeline that aborts before its SET runs.
        try await conn.enqueue("SELECT 1 / \(0)::int AS boom")
        await #expect(throws: PGError.self) {
            try await conn.query(("SELECT \(1)::int AS one" as PGQuery).reusingPlan())
        }
        #expect(try await mode(conn, reusing: true) == "auto")
        await conn.close()
    }

    @Test("a marked statement keeps a generic plan; an unmarked one is planned at every execution")
    func genericPlans() async throws {
        let db = try await TestDatabase.make(migrate: false)
        let conn = try await db.connectCountingPlans()
        try await conn.query("CREATE TABLE keyed (k int PRIMARY KEY, v text)")
        let reused: PGQuery = "SELECT v FROM keyed WHERE k = \(1)"
        let planned: PGQuery = "SELECT v, k FROM keyed WHERE k = \(1)"
        for _ in 1...8 {
            try await conn.query(reused.reusingPlan())
            try await conn.query(planned)
        }
        let generic = try await plans(conn, reused.sql)
        #expect(generic.generic >= 1)
        #expect(generic.custom == 5)  // PostgreSQL's auto mode: five custom plans, then the generic one
        #expect(try await plans(conn, planned.sql) == (generic: 0, custom: 8))
        await conn.close()
    }

    @Test("a marked statement is prepared afresh once its plan has outlived the lifetime")
    func lifetime() async throws {
        let db = try await TestDatabase.make(migrate: false)
        let conn = try await PGConnection.connect(url: db.url, genericPlanLifetime: .milliseconds(300))
        try await conn.query("CREATE TABLE grows (k int PRIMARY KEY, v text)")
        let lookup: PGQuery = .reusingPlan("SELECT v FROM grows WHERE k = \(1)")
        /// The server's prepared statements for `lookup`: how many, and when the newest was prepared.
        func preparedLookups() async throws -> (count: Int, latest: String?) {
            let rows = try await conn.query(
                """
                SELECT count(*) AS c, max(prepare_time)::text AS t FROM pg_prepared_statements
                WHERE statement = \(lookup.sql)
                """)
            return (try rows[0].int("c"), rows[0]["t"])
        }
        try await conn.query(lookup)
        let first = try await preparedLookups()
        #expect(first.count == 1)
        try await Task.sleep(for: .milliseconds(400))
        try await conn.query(lookup)
        // Prepared again, and the old statement deallocated.
        let second = try await preparedLookups()
        #expect(second.count == 1)
        #expect(second.latest != nil && second.latest != first.latest)
        await conn.close()
    }
}
