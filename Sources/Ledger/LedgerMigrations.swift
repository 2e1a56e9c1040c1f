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

    @discardableResult
    public static func migrate(pool: PGPool) async throws -> [Int] {
        try await PGMigrator(pool: pool).migrate(try all())
    }
}
