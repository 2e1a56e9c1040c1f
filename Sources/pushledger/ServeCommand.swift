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

    func run() async throws {
        var logger = Logger(label: "pushledger")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .info
        let config = ServerConfiguration(databaseURL: try database.url(), host: host, port: port, maxConnections: connections)
        try await PushLedgerServer.run(config, logger: logger) { port in
            // One machine-readable line, so scripts and tests can find the port.
            let line = "{\"listening\":{\"host\":\"\(host)\",\"port\":\(port)}}\n"
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }
}
