import ArgumentParser
import Foundation
import Ledger
import PushCore

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "The installations a `where` would have targeted at an instant, from the event log alone.")

    enum Format: String, ExpressibleByArgument { case table, json }

    @OptionGroup var selection: AppSelection
    @Option(help: "The instant, ISO 8601 (e.g. 2025-01-02T03:04:05.000Z).") var at: String
    @Option(name: .customLong("where"), help: "LeanCloud `where` JSON.") var whereJSON: String = "{}"
    @Option(help: "A push's `data`: leave out platforms it has no content for, as targeting does.") var data: String?
    @Option(help: "table, or json (one array of objectIds).") var format: Format = .table
    @Option(help: "setBased (fast) or perEvent (the projection itself, for comparison).")
    var fold: String = ReplayFoldStrategy.setBased.rawValue

    func run() async throws {
        guard let strategy = ReplayFoldStrategy(rawValue: fold) else {
            throw ValidationError("--fold: setBased or perEvent")
        }
        let instant = try CommandFailure.instant(at)
        let whereValue = try CommandFailure.json(whereJSON)
        var pushData: PushData?
        if let data {
            let json = try CommandFailure.json(data)
            do { pushData = try PushData(json) } catch { throw CommandFailure.exit(error.leanError) }
        }
        let (ledger, app) = try await selection.open()
        // The summary keeps the words scripts/bench-replay reads: "replayed N events in X s".
        let progress = ProgressReporter(task: "replay", unit: "events", pastTense: "replayed")
        let result = try await progress.tracking {
            try await Replayer(store: ledger.events).replay(
                app: app, at: instant, whereJSON: whereValue, pushData: pushData, strategy: strategy, progress: $0)
        }
        progress.finish(done: result.events, seconds: result.seconds)
        switch format {
        case .json:
            print(JSON.array(result.objectIds.map { .string($0) }).encoded())
        case .table:
            print("objectId")
            for id in result.objectIds { print(id) }
            print("(\(result.objectIds.count) installations at \(LeanDate.format(instant)))")
        }
        await ledger.pool.close()
    }
}
