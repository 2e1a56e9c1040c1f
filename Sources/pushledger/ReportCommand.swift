import ArgumentParser
import Foundation
import PushCore
import PushLedgerServer
import Reports

/// `pushledger report <billing|opens|audit>` (SPEC §9): the same reports as `GET /1.1/reports/:name`.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Print a billing, opens or audit report of one app (days in the app's time zone).")

    @OptionGroup var database: DatabaseOptions
    @Argument(help: "billing, opens or audit") var name: String
    @Option(help: "The app id.") var app: String
    @Option(help: "First day, YYYY-MM-DD (default: 29 days before --to).") var from: String?
    @Option(help: "Last day, YYYY-MM-DD (default: today).") var to: String?
    @Option(help: "table, csv, json or html.") var format: String = "table"
    @Option(help: "Write the report to this file instead of standard output.") var out: String?
    @Option(help: "opens only: rows per push (default), day (and platform) or notification (id).") var by: String?

    func run() async throws {
        let ledger = LedgerComponents(databaseURL: try database.url(), maxConnections: 2)
        let text = try await CLIErrors.reporting {
            let request = ReportRequest(
                name: try ReportName.parse(name), appId: app, from: from, to: to,
                grouping: try by.map(OpensGrouping.parse))
            let chosen = try ReportFormat.parse(format)
            return try await ReportRunner(pool: ledger.pool).run(request).render(chosen)
        }
        await ledger.pool.close()
        if let out {
            try Data(text.utf8).write(to: URL(fileURLWithPath: out))
        } else {
            print(text, terminator: "")
        }
    }
}
