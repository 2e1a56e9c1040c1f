import Foundation
import Postgres
import TestEnvironment
import Testing

private let clusterURL = ProcessInfo.processInfo.environment["PUSHLEDGER_TEST_PG"]

/// `sendQueued`: queued statements go to the server without waiting for it; the next use of the connection reads
/// their results, and throws their error.
@Suite("PGConnection pipelines sent ahead", .requiresPostgreSQL)
struct PGPipelineTests {
    private func makePool() throws -> PGPool {
        PGPool(url: try #require(clusterURL) + "/postgres", maxConnections: 1)
    }

    @Test("statements sent ahead run in order before the next query, while the caller goes on")
    func sentAheadRunBeforeTheNextQuery() async throws {
        let pool = try makePool()
        let rows = try await pool.withTransaction { conn in
            try await conn.execute(
                unsafeScript: "CREATE TEMP TABLE ahead (n int, at timestamptz DEFAULT clock_timestamp())")
            for i in 0..<300 { try await conn.enqueue("INSERT INTO ahead (n) VALUES (\(i))") }
            // A slow statement at the end: sendQueued returns long before the server is through it.
            try await conn.enqueue("SELECT pg_sleep(1)")
            let started = ContinuousClock.now
            try await conn.sendQueued()
            #expect(ContinuousClock.now - started < .milliseconds(700), "sendQueued waited for the server")
            // More statements queue behind the ones in flight, and run after them.
            for i in 300..<600 { try await conn.enqueue("INSERT INTO ahead (n) VALUES (\(i))") }
            return try await conn.query(
                """
                SELECT count(*) AS n, bool_and(ordered) AS ordered
                FROM (SELECT at >= lag(at, 1, at) OVER (ORDER BY n) AS ordered FROM ahead) t
                """)
        }
        await pool.close()
        #expect(try rows[0].int("n") == 600)
        #expect(try rows[0].bool("ordered"))
    }

    @Test("an error among statements sent ahead is thrown by the next use, and the connection goes on after a rollback")
    func anErrorSentAheadIsThrownNext() async throws {
        let pool = try makePool()
        try await pool.withConnection { conn in
            try await conn.query("BEGIN")
            try await conn.enqueue("SELECT 1 / 0")
            try await conn.sendQueued()
            await #expect(throws: PGError.self) { try await conn.query("SELECT 1 AS one") }
            try await conn.query("ROLLBACK")
            #expect(try await conn.query("SELECT 2 AS two")[0].int("two") == 2)
            // Nothing was left in flight for a script or a second send either.
            try await conn.sendQueued()
            try await conn.execute(unsafeScript: "SELECT 3")
        }
        await pool.close()
    }
}
