import ArgumentParser
import Foundation
import PushLedgerServer

/// The `pushledger` command: one subcommand per file in this folder.
@main
struct PushLedger: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushledger",
        abstract: "A self-hosted push notification service whose source of truth is an event log.",
        discussion: ExitStatus.helpText,
        version: PushLedgerVersion.current,
        subcommands: [
            MigrateCommand.self, ServeCommand.self, AppCommand.self, SimulateCommand.self, RebuildCommand.self,
            RetentionCommand.self, ReportCommand.self, ReplayCommand.self, ExplainCommand.self, DeviceCommand.self,
            DistributeCommand.self,
        ]
    )

    /// ArgumentParser's own `main`, plus what every command shares: logging is bootstrapped once, after parsing
    /// (so `--help` and `--version` work whatever the environment says) and before any command runs; and every
    /// failure leaves with a status of `ExitStatus`.
    static func main() async {
        do {
            var command = try await asyncParseAsRoot()
            let settings: LogSetup.Settings
            do {
                settings = try LogSetup.Settings(environment: ProcessInfo.processInfo.environment)
            } catch {
                throw UsageError(error.description)
            }
            LogSetup.bootstrap(settings)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: ExitStatus.exitError(for: error))
        }
    }
}
