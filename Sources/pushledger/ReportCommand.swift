import ArgumentParser
import Foundation
import Ledger
import PushCore
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
        let (request, chosen) = try parsed()
        let ledger = LedgerComponents(databaseURL: try database.url(), maxConnections: 2)
        let text = try await ReportRunner(pool: ledger.pool).run(request).render(chosen)
        await ledger.pool.close()
        if let out {
            try Data(text.utf8).write(to: URL(fileURLWithPath: out))
        } else {
            print(text, terminator: "")
        }
    }

    /// The request the flags describe. The report layer judges them (the REST API answers the same messages),
    /// but on the command line a bad one is a usage error, so it is checked before the database is opened.
    private func parsed() throws -> (ReportRequest, ReportFormat) {
        do throws(LeanError) {
            let request = ReportRequest(
                name: try ReportName.parse(name), appId: app, from: from, to: to,
                grouping: try by.map(OpensGrouping.parse))
            // The days' spelling and order; "today" only stands in for a missing --to and is the app's, so a
            // --from after today is still the report's to refuse.
            _ = try ReportRange.resolve(from: from, to: to, today: "9999-12-31")
            return (request, try ReportFormat.parse(format))
        } catch {
            throw ValidationError(error.message)
        }
    }
}
