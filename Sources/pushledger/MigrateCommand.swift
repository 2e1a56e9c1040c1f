import ArgumentParser
import Ledger
import Postgres

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Apply the schema migrations (idempotent; refuses a changed migration).")

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let pool = PGPool(url: try database.url(), maxConnections: 1)
        let applied = try await LedgerMigrations.migrate(pool: pool)
        await pool.close()
        print(
            applied.isEmpty
                ? "schema is up to date" : "applied migrations \(applied.map(String.init).joined(separator: ", "))")
    }
}
