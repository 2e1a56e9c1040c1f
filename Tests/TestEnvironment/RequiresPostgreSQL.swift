import Foundation
import Testing

/// Marks a suite that needs the test PostgreSQL cluster. Without one the suite fails, naming what to run,
/// instead of being skipped: a `swift test` that skipped every database suite would report success for a run
/// that tested a fraction of the code.
public struct RequiresPostgreSQL: SuiteTrait, TestTrait, TestScoping {
    /// The variable that names the cluster: a libpq URI without a database name, or with one for `psql`.
    let variable: String

    public var isRecursive: Bool { false }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard ProcessInfo.processInfo.environment[variable] != nil else {
            throw MissingTestPostgreSQL(variable: variable)
        }
        try await function()
    }
}

extension Trait where Self == RequiresPostgreSQL {
    /// Needs `PUSHLEDGER_TEST_PG`, the cluster every database suite creates its databases on.
    public static var requiresPostgreSQL: Self { RequiresPostgreSQL(variable: "PUSHLEDGER_TEST_PG") }

    /// Needs `PUSHLEDGER_TEST_CITUS_WORKERS`, the workers of the Citus cluster `scripts/test-citus` starts, whose
    /// coordinator is `PUSHLEDGER_TEST_PG`.
    public static var requiresCitus: Self { RequiresPostgreSQL(variable: "PUSHLEDGER_TEST_CITUS_WORKERS") }

    /// Needs `PUSHLEDGER_TEST_PSQL_URL`, a database `psql` connects to.
    public static var requiresPSQL: Self { RequiresPostgreSQL(variable: "PUSHLEDGER_TEST_PSQL_URL") }
}

/// The failure of a database suite run without a cluster; its text is what `swift test` prints.
public struct MissingTestPostgreSQL: Error, CustomStringConvertible {
    public let variable: String

    public var description: String {
        if variable == "PUSHLEDGER_TEST_CITUS_WORKERS" {
            return "\(variable) is not set, so this suite has no Citus cluster. Run scripts/test-citus with "
                + "PUSHLEDGER_CITUS_PG_BIN naming a PostgreSQL with Citus (docs/testing.md); scripts/test skips it."
        }
        return "\(variable) is not set, so this suite cannot reach PostgreSQL. Run scripts/test: it starts a private "
            + "PostgreSQL cluster, builds, and runs every suite. To run `swift test` yourself, start a cluster "
            + "and set PUSHLEDGER_TEST_PG=postgresql://postgres@127.0.0.1:PORT and "
            + "PUSHLEDGER_TEST_PSQL_URL=postgresql://postgres@127.0.0.1:PORT/postgres (docs/testing.md)."
    }
}
