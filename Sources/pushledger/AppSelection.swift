import ArgumentParser
import Ledger
import PushCore

/// `--database-url` and `--app`: the app a report-style command reads, looked up or LeanCloud's 101 (exit 1).
struct AppSelection: ParsableArguments {
    @OptionGroup var database: DatabaseOptions
    @Option(help: "App id.") var app: String

    /// The ledger and the app; the caller closes the pool.
    func open() async throws -> (LedgerComponents, App) {
        let ledger = LedgerComponents(databaseURL: try database.url(), maxConnections: 2)
        guard let found = try await ledger.appDirectory.find(app) else {
            throw LeanError.notFound("No app with id \(app).")
        }
        return (ledger, found)
    }
}
