import Foundation
import Postgres
import TestEnvironment
import Testing

private let clusterURL = ProcessInfo.processInfo.environment["PUSHLEDGER_TEST_PG"]

/// `copyIn(_:from:_:)`: rows streamed from one connection's `COPY … TO STDOUT` into another's `COPY … FROM STDIN`,
/// with the writer inside a transaction on its own executor (the rebuild's shape), through a pipe that holds at
/// most 1 MiB: the copies below are several times that, so both sides wait on each other along the way.
@Suite("PGConnection copy between connections", .requiresPostgreSQL)
struct PGCopyPipeTests {
    private func makePool() throws -> PGPool {
        PGPool(url: try #require(clusterURL) + "/postgres", maxConnections: 2)
    }

    private static let rows = 200_000
    /// Every row carries a text that COPY must escape (tab, newline, backslash) or a NULL, so a chunk boundary
    /// inside an escape would show.
    private static let source: PGQuery = """
        COPY (SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE 'row ' || g || E'\\t\\n\\\\' || repeat('x', g % 50) END
              FROM generate_series(1, 200000) g) TO STDOUT
        """

    @Test("every row arrives, in order, escapes and NULLs intact")
    func copiesEveryRow() async throws {
        let pool = try makePool()
        let check = try await pool.withTransaction { writer in
            try await writer.execute(unsafeScript: "CREATE TEMP TABLE piped (n int, t text)")
            try await pool.withConnection { reader in
                try await writer.copyIn("COPY piped FROM STDIN", from: reader, Self.source)
            }
            return try await writer.query(
                """
                SELECT count(*) AS n, sum(n) AS total, count(*) FILTER (WHERE t IS NULL) AS nulls,
                    count(*) FILTER (WHERE t = 'row ' || n || E'\\t\\n\\\\' || repeat('x', n % 50)) AS intact
                FROM piped
                """)[0]
        }
        await pool.close()
        let n = Self.rows
        #expect(try check.int("n") == n)
        #expect(try check.int("total") == n * (n + 1) / 2)
        #expect(try check.int("nulls") == n / 7)
        #expect(try check.int("intact") == n - n / 7)
    }

    @Test("a reader that fails half-way fails the copy and leaves the writer's transaction to roll back")
    func readerFailureFailsTheCopy() async throws {
        let pool = try makePool()
        try await pool.withConnection { writer in
            try await writer.execute(unsafeScript: "CREATE TEMP TABLE piped (n int)")
            try await writer.query("BEGIN")
            let thrown = await #expect(throws: PGError.self) {
                try await pool.withConnection { reader in
                    try await writer.copyIn(
                        "COPY piped FROM STDIN", from: reader,
                        "COPY (SELECT 1000000 / (150000 - g) FROM generate_series(1, 200000) g) TO STDOUT")
                }
            }
            #expect(thrown?.sqlState == "22012", "the reader's division by zero is the error reported")
            try await writer.query("ROLLBACK")
            #expect(try await writer.query("SELECT count(*) AS n FROM piped")[0].int("n") == 0)
        }
        await pool.close()
    }

    @Test("a writer that fails stops the copy without leaving the reader waiting")
    func writerFailureFailsTheCopy() async throws {
        let pool = try makePool()
        try await pool.withConnection { writer in
            try await writer.execute(unsafeScript: "CREATE TEMP TABLE piped (n int CHECK (n < 1000), t text)")
            try await pool.withConnection { reader in
                let thrown = await #expect(throws: PGError.self) {
                    try await writer.copyIn("COPY piped FROM STDIN", from: reader, Self.source)
                }
                #expect(thrown?.sqlState == "23514")
                // The reader is usable afterwards: its COPY ran to its end.
                let one = try await reader.query("SELECT 1 AS one")[0].int("one")
                #expect(one == 1)
            }
            #expect(try await writer.query("SELECT count(*) AS n FROM piped")[0].int("n") == 0)
        }
        await pool.close()
    }
}
