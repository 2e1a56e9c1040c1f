import ArgumentParser
import Foundation
import Ledger

struct RebuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Rebuild every projection from position 0; with --verify, prove the live tables equal the rebuild.")

    @OptionGroup var database: DatabaseOptions
    @Flag(help: "Compare instead of replacing; exit 1 and show the differences if they differ.") var verify = false

    func run() async throws {
        // The rebuild's own connection, the log scan's and the summaries' (Rebuilder).
        let ledger = LedgerComponents(databaseURL: try database.url(), maxConnections: 3)
        // Asynchronous projections are brought up to date first, so only real differences remain.
        for runner in ledger.projectorRunners(wakeups: WakeSignal()) { try await runner.catchUp() }
        let progress = ProgressReporter(task: "rebuild", unit: "events", pastTense: "rebuilt")
        let report = try await progress.tracking { try await ledger.rebuilder().run(verify: verify, progress: $0) }
        progress.finish(done: report.events, seconds: report.seconds)
        // Where the time went, for operators and benchmarks; stdout keeps its one summary line.
        let seconds = report.phases.map { ($0.name, String(format: "%.2f", $0.seconds)) }
        progress.note(
            "rebuild phases: " + seconds.map { "\($0) \($1) s" }.joined(separator: ", "),
            metadata: Dictionary(uniqueKeysWithValues: seconds.map { ($0, .string($1)) }))
        let rate = String(format: "%.0f", report.eventsPerSecond)
        if verify {
            if report.differences.isEmpty {
                print(
                    "verified: \(report.events) events rebuilt into projections identical to the live tables "
                        + "(\(String(format: "%.2f", report.seconds)) s, \(rate) events/s)")
            } else {
                for d in report.differences { print(d) }
                print("MISMATCH: \(report.differences.count) table(s) differ from the log")
                throw ExitStatus.failure.exitCode
            }
        } else {
            print(
                "rebuilt projections from \(report.events) events (\(String(format: "%.2f", report.seconds)) s, \(rate) events/s)"
            )
        }
        await ledger.pool.close()
    }
}
