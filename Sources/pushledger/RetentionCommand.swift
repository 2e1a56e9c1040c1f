import ArgumentParser
import Foundation
import Ledger
import PushCore
import PushLedgerServer

struct RetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention", abstract: "The retention job (SPEC §8).", subcommands: [RetentionRunCommand.self])
}

struct RetentionRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Expire stale installations, purge old push records, drop expired scheduled pushes and close "
            + "finished days; prints what it did as JSON.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Run as if it were this instant (ISO 8601); default: now") var now: String?

    func run() async throws {
        let instant = try now.map { try CommandFailure.instant($0, flag: "--now") } ?? Date()
        let ledger = LedgerComponents(databaseURL: try database.url(), maxConnections: 2)
        let progress = ProgressReporter(task: "retention", unit: "items", pastTense: "retention examined")
        let report = try await progress.tracking {
            try await RetentionJob(store: ledger.events).run(now: instant, progress: $0)
        }
        progress.finish()
        print(report.json.encoded())
        await ledger.pool.close()
    }
}
