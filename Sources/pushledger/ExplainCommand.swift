import ArgumentParser
import Foundation
import Ledger
import PushCore

struct ExplainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Why a push did or did not reach an installation: its history, each condition, the outcome.")

    enum Format: String, ExpressibleByArgument { case text, json }

    @OptionGroup var selection: AppSelection
    @Option(help: "The push's objectId.") var push: String
    @Option(help: "The installation's objectId.") var installation: String
    @Option(help: "text, or json (one object).") var format: Format = .text

    func run() async throws {
        let (ledger, app) = try await selection.open()
        let explanation: Explanation
        do {
            explanation = try await Explainer(store: ledger.events).explain(
                app: app, pushId: push, objectId: installation)
        } catch let error as Explainer.Failure {
            throw CommandFailure.exit(error.description)
        } catch let error as LeanError {
            throw CommandFailure.exit(error)
        }
        print(format == .json ? explanation.json.encoded() : explanation.text)
        await ledger.pool.close()
    }
}
