import ArgumentParser
import Foundation
import Logging
import PushLedgerServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the REST API, the projectors and the delivery workers.")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Address to listen on") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks a free one)") var port = 8080
    @Option(help: "PostgreSQL connections in the pool") var connections = 16
    @Option(help: "Concurrent batch senders of the fan-out") var senders = 4
    @Option(name: .customLong("batch-lease-seconds"), help: "How long a dead sender's batch waits before others retry it")
    var batchLease = 30
    @Option(name: .customLong("retention-interval-seconds"), help: "How often the retention job runs (0: never in this process)")
    var retentionInterval = 3600

    func run() async throws {
        var logger = Logger(label: "pushledger")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
        var config = ServerConfiguration(databaseURL: try database.url(), host: host, port: port, maxConnections: connections)
        config.senders = max(1, senders)
        config.batchLease = .seconds(max(1, batchLease))
        config.retentionInterval = retentionInterval > 0 ? .seconds(retentionInterval) : nil
        try await PushLedgerServer.run(config, logger: logger) { port in
            // One machine-readable line, so scripts and tests can find the port.
            let line = "{\"listening\":{\"host\":\"\(host)\",\"port\":\(port)}}\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }
}
