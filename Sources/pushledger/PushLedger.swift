import ArgumentParser

/// The `pushledger` command: one subcommand per file in this folder.
@main
struct PushLedger: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushledger",
        abstract: "A self-hosted push notification service whose source of truth is an event log.",
        subcommands: [
            MigrateCommand.self, ServeCommand.self, AppCommand.self, SimulateCommand.self, RebuildCommand.self,
            RetentionCommand.self, ReportCommand.self, ReplayCommand.self, ExplainCommand.self,
        ]
    )
}
