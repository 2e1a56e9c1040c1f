import Foundation
import Postgres
import TestEnvironment
import Testing

/// The throw-away cluster `scripts/test` starts.
private let clusterURL = ProcessInfo.processInfo.environment["PUSHLEDGER_TEST_PG"]

@Suite("PGPool lending", .requiresPostgreSQL)
struct PGPoolTests {
    private func makePool(max: Int) throws -> PGPool {
        PGPool(url: try #require(clusterURL) + "/postgres", maxConnections: max)
    }

    private func backendPID(_ conn: PGConnection) async throws -> Int {
        try await conn.query("SELECT pg_backend_pid() AS pid")[0].int("pid")
    }

    @Test("more borrowers than connections all finish, on at most maxConnections backends")
    func borrowersBeyondTheLimitWait() async throws {
        let pool = try makePool(max: 3)
        let pids = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<40 {
                group.addTask {
                    try await pool.withConnection { conn in
                        _ = try await conn.query("SELECT pg_sleep(0.005)")
                        return try await backendPID(conn)
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        await pool.close()
        #expect(pids.count == 40)
        #expect(Set(pids).count <= 3)
    }

    @Test("a connection handed back inside a transaction is closed, and the next borrower gets a fresh one")
    func connectionLeftInATransactionIsNotReused() async throws {
        let pool = try makePool(max: 1)
        let first = try await pool.withConnection { conn in
            try await conn.query("BEGIN")
            return try await backendPID(conn)
        }
        let second = try await pool.withConnection { conn in
            // SAVEPOINT works only inside a transaction block: the fresh connection has none.
            await #expect(throws: PGError.self) { try await conn.query("SAVEPOINT s") }
            return try await backendPID(conn)
        }
        await pool.close()
        #expect(first != second)
    }

    @Test("a connection whose backend died is replaced, also for a borrower already waiting")
    func brokenConnectionIsReplaced() async throws {
        let pool = try makePool(max: 1)
        let killer = Task {
            try await pool.withConnection { conn in
                try await Task.sleep(for: .milliseconds(50))  // let the waiter queue up behind us
                _ = try await conn.query("SELECT pg_terminate_backend(pg_backend_pid())")
            }
        }
        try await Task.sleep(for: .milliseconds(10))
        let waiter = Task { try await pool.withConnection { try await backendPID($0) } }
        await #expect(throws: (any Error).self) { try await killer.value }
        let pid = try await waiter.value
        let again = try await pool.withConnection { try await backendPID($0) }
        await pool.close()
        #expect(pid == again)
    }

    @Test("closing refuses new borrowers")
    func closedPoolRefuses() async throws {
        let pool = try makePool(max: 2)
        _ = try await pool.query("SELECT 1")
        await pool.close()
        await #expect(throws: PGError.self) { try await pool.query("SELECT 1") }
    }
}
