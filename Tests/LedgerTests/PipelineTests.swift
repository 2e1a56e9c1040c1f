import Foundation
import Postgres
import TestEnvironment
import TestSupport
import Testing

/// `PGConnection.enqueue`: statements sent together with the next query, pipelined in one round trip.
@Suite("Pipelined statements", .requiresPostgreSQL)
struct PipelineTests {
    @Test("queued statements run in order before the next query, which sees their writes")
    func orderAndVisibility() async throws {
        let db = try await TestDatabase.make(migrate: false)
        let conn = try await db.connect()
        try await conn.query("CREATE TABLE p (n int PRIMARY KEY, label text)")
        for i in 1...300 {  // more than one pipeline's worth: the queue flushes itself when full
            try await conn.enqueue("INSERT INTO p VALUES (\(i), \("x\(i)"))")
        }
        try await conn.enqueue("UPDATE p SET label = 'last' WHERE n = \(300)")
        let rows = try await conn.query("SELECT count(*) AS c, max(label) FILTER (WHERE n = 300) AS l FROM p")
        #expect(try rows[0].int("c") == 300)
        #expect(rows[0]["l"] == "last")
        await conn.close()
    }

    @Test("an error among queued statements is thrown by the next query and leaves the connection usable")
    func errors() async throws {
        let db = try await TestDatabase.make(migrate: false)
        let conn = try await db.connect()
        try await conn.query("CREATE TABLE q (n int PRIMARY KEY)")
        try await conn.enqueue("INSERT INTO q VALUES (\(1))")
        try await conn.enqueue("INSERT INTO q VALUES (\(1))")  // duplicate key
        try await conn.enqueue("INSERT INTO q VALUES (\(2))")  // skipped: the pipeline aborted
        await #expect(throws: PGError.self) { try await conn.query("SELECT 1 AS one") }
        // Outside a transaction one pipeline is one implicit transaction: nothing of it stays.
        let rows = try await conn.query("SELECT count(*) AS c FROM q")
        #expect(try rows[0].int("c") == 0)
        // A statement that failed to prepare inside a pipeline is prepared again next time.
        try await conn.enqueue("INSERT INTO nowhere VALUES (\(1))")
        await #expect(throws: PGError.self) { try await conn.flush() }
        try await conn.query("CREATE TABLE nowhere (n int)")
        try await conn.enqueue("INSERT INTO nowhere VALUES (\(1))")
        try await conn.flush()
        #expect(try await conn.query("SELECT count(*) AS c FROM nowhere")[0].int("c") == 1)
        await conn.close()
    }

    @Test("a rolled-back transaction drops its queued statements")
    func rollbackDiscards() async throws {
        let db = try await TestDatabase.make(migrate: false)
        let pool = db.ledger.pool
        try await pool.query("CREATE TABLE r (n int)")
        struct Boom: Error {}
        await #expect(throws: Boom.self) {
            try await pool.withTransaction { conn in
                try await conn.enqueue("INSERT INTO r VALUES (\(1))")
                throw Boom()
            }
        }
        try await pool.withConnection { conn in try await conn.enqueue("INSERT INTO r VALUES (\(2))") }
        #expect(try await pool.query("SELECT array_agg(n)::text AS ns FROM r")[0]["ns"] == "{2}")
    }

    @Test("a script or COPY right after BEGIN runs inside the transaction (the queued BEGIN goes first)")
    func scriptsStayInTheTransaction() async throws {
        let db = try await TestDatabase.make(migrate: false)
        let pool = db.ledger.pool
        let setting = try await pool.withTransaction { conn in
            try await conn.execute(unsafeScript: "SET LOCAL work_mem = '77MB'")
            return try await conn.query("SELECT current_setting('work_mem') AS w")[0]["w"]
        }
        #expect(setting == "77MB")
        struct Boom: Error {}
        await #expect(throws: Boom.self) {
            try await pool.withTransaction { conn in
                try await conn.execute(unsafeScript: "CREATE TABLE undone (n int)")
                throw Boom()
            }
        }
        let exists = try await pool.query("SELECT to_regclass('undone') IS NOT NULL AS e")[0]["e"]
        #expect(exists == "f")
    }
}
