import ArgumentParser
import Foundation
import Ledger
import PushCore

struct RetentionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retention", abstract: "The retention job (SPEC §8).", subcommands: [RetentionRunCommand.self])
}

struct RetentionRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Expire stale installations, purge old push records, drop expired scheduled pushes, close "
            + "finished days and, when asked, drop old days of the event log; prints what it did as JSON.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Run as if it were this instant (ISO 8601); default: now") var now: String?
    @Option(help: "Days of event log to keep, dropping older whole UTC days; default: the whole log")
    var logRetentionDays: Int?

    func run() async throws {
        let instant = try now.map { try CommandFailure.instant($0, flag: "--now") } ?? Date()
        if let days = logRetentionDays, days < 1 {
            throw ValidationError("--log-retention-days must be at least 1")
        }
        let ledger = LedgerComponents(databaseURL: try database.url(), maxConnections: 2)
        let progress = ProgressReporter(task: "retention", unit: "items", pastTense: "retention examined")
        let report = try await progress.tracking {
            try await RetentionJob(store: ledger.events, logRetentionDays: logRetentionDays).run(
                now: instant, progress: $0)
        }
        progress.finish()
        print(report.json.encoded())
        await ledger.pool.close()
    }
}
