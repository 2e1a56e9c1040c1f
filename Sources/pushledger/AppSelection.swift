import ArgumentParser
import Ledger
import PushLedgerServer

/// `--database-url` and `--app`: the app a report-style command reads, looked up or exit 1.
struct AppSelection: ParsableArguments {
    @OptionGroup var database: DatabaseOptions
    @Option(help: "App id.") var app: String

    /// The ledger and the app; the caller closes the pool.
    func open() async throws -> (LedgerComponents, App) {
        let ledger = LedgerComponents(databaseURL: try database.url(), maxConnections: 2)
        guard let found = try await ledger.apps.find(app) else { throw CommandFailure.exit("no app with id \(app)") }
        return (ledger, found)
    }
}
