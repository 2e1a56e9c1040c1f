import Foundation
import Postgres

/// The schema migrations shipped with the binary (the files of `sql/`, bundled as a resource).
public enum LedgerMigrations {
    public static func all() throws -> [PGMigration] {
        if let override = ProcessInfo.processInfo.environment["PUSHLEDGER_SQL_DIR"] {
            return try PGMigration.load(from: URL(fileURLWithPath: override))
        }
        guard let url = Bundle.module.url(forResource: "Migrations", withExtension: nil) else {
            throw PGError(kind: .protocolViolation, message: "migrations are missing from the bundle")
        }
        return try PGMigration.load(from: url)
    }

    /// Applies the migrations not applied yet. On a database distributed on Citus (`CitusLayout`), a table a
    /// migration added is then distributed like the others, so a later migration needs no step of its own there.
    @discardableResult
    public static func migrate(pool: PGPool) async throws -> [Int] {
        let applied = try await PGMigrator(pool: pool).migrate(try all())
        if !applied.isEmpty, try await CitusLayout.isDistributed(on: pool) {
            try await CitusLayout.distribute(pool: pool)
        }
        return applied
    }
}
