import ArgumentParser
import Delivery
import DeviceChannel
import Foundation
import Logging
import PushLedgerServer

/// `pushledger serve`. Every flag can also come from the environment (SPEC §11); a flag on the command line wins.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the REST API, the projectors and the delivery workers.",
        discussion: """
            Each flag may also be set in the environment (named in its help); a flag given here wins over the \
            variable. Logging: LOG_LEVEL (trace, debug, info, notice, warning, error, critical; default info) and \
            LOG_FORMAT (text or json; default text), on stderr.
            """)

    static let portRange = 0...65535

    @OptionGroup var database: DatabaseOptions
    @Option(help: "Address to listen on (env HOST; default 127.0.0.1)") var host: String?
    @Option(help: "Port to listen on, 0 picks a free one (env PORT; default 8080)") var port: Int?
    @Option(help: "PostgreSQL connections in the pool (env PUSHLEDGER_CONNECTIONS; default 16)") var connections: Int?
    @Option(help: "Concurrent batch senders of the fan-out (env PUSHLEDGER_SENDERS; default 4)") var senders: Int?
    @Option(
        help: ArgumentHelp(
            "The HTTP/2 library APNs and FCM notifications go through: "
                + TransportLibrary.allCases.map(\.rawValue).joined(separator: " or ")
                + " (env PUSHLEDGER_TRANSPORT; default \(TransportLibrary.standard))"))
    var transport: String?
    @Option(
        name: .customLong("batch-lease-seconds"),
        help: ArgumentHelp(
            "How long a dead sender's batch waits before others retry it (env PUSHLEDGER_BATCH_LEASE_SECONDS; "
                + "default 30)"))
    var batchLease: Int?
    @Option(
        name: .customLong("retention-interval-seconds"),
        help: ArgumentHelp(
            "How often the retention job runs, 0: never in this process (env PUSHLEDGER_RETENTION_INTERVAL_SECONDS; "
                + "default 3600)"))
    var retentionInterval: Int?
    @Option(
        name: .customLong("log-retention-days"),
        help: ArgumentHelp(
            "Days of event log the retention job keeps, dropping older whole days; 0: the whole log "
                + "(env PUSHLEDGER_LOG_RETENTION_DAYS; default 0)"))
    var logRetentionDays: Int?
    @Option(
        name: .customLong("metrics-token"),
        help: "Require `Authorization: Bearer <token>` on GET /metrics (env METRICS_TOKEN, which keeps it out of ps)")
    var metricsToken: String?
    @Option(
        name: .customLong("channel-ping-seconds"),
        help: ArgumentHelp(
            "How often devices on the own channel are pinged; one that missed the previous ping is disconnected "
                + "(env PUSHLEDGER_CHANNEL_PING_SECONDS; default 240)"))
    var channelPing: Int?
    @Option(
        name: .customLong("channel-public-url"),
        help: ArgumentHelp(
            "The WebSocket URL GET /v1/route hands the LeanCloud SDK, behind a proxy (ws:// or wss://; env "
                + "PUSHLEDGER_CHANNEL_PUBLIC_URL; default: the request's Host at /channel)"))
    var channelPublicURL: String?
    @Option(
        name: .customLong("tls-cert"),
        help: "PEM certificate chain: serve HTTPS and WSS on the port (env PUSHLEDGER_TLS_CERT; with --tls-key)")
    var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: "PEM private key of --tls-cert (env PUSHLEDGER_TLS_KEY)")
    var tlsKey: String?
    @Option(
        name: .customLong("request-timeout-seconds"),
        help: ArgumentHelp(
            "A request (and a TLS handshake) must arrive whole within this many seconds of its first byte, else "
                + "408 and a close (env PUSHLEDGER_REQUEST_TIMEOUT_SECONDS; default "
                + "\(ConnectionLimits.Configuration.defaultRequestTimeoutSeconds))"))
    var requestTimeout: Int?
    @Option(
        name: .customLong("idle-timeout-seconds"),
        help: ArgumentHelp(
            "An HTTP connection without a request for this long is closed; device-channel WebSockets follow "
                + "--channel-ping-seconds instead (env PUSHLEDGER_IDLE_TIMEOUT_SECONDS; default "
                + "\(ConnectionLimits.Configuration.defaultIdleTimeoutSeconds))"))
    var idleTimeout: Int?
    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp(
            "HTTP connections open at once; more are answered 503 and closed (env PUSHLEDGER_MAX_CONNECTIONS; "
                + "default \(ConnectionLimits.Configuration.defaultMaxConnections), lowered with the next one to "
                + "fit the open-file limit)"))
    var maxConnections: Int?
    @Option(
        name: .customLong("max-channel-connections"),
        help: ArgumentHelp(
            "Device-channel WebSockets open at once; more are refused with close code 4503 "
                + "(env PUSHLEDGER_MAX_CHANNEL_CONNECTIONS; default "
                + "\(ConnectionLimits.Configuration.defaultMaxChannelConnections))"))
    var maxChannelConnections: Int?

    func validate() throws {
        if let port, !Self.portRange.contains(port) { throw ValidationError("--port must be from 0 to 65535.") }
        if let connections, connections < 1 { throw ValidationError("--connections must be at least 1.") }
        if let channelPing, channelPing < 1 { throw ValidationError("--channel-ping-seconds must be at least 1.") }
        for (name, value) in [
            ("--request-timeout-seconds", requestTimeout), ("--idle-timeout-seconds", idleTimeout),
            ("--max-connections", maxConnections), ("--max-channel-connections", maxChannelConnections),
        ] {
            if let value, value < 1 { throw ValidationError("\(name) must be at least 1.") }
        }
    }

    func run() async throws {
        let config = try configuration(EnvironmentVariables())
        let logger = Logger(label: "pushledger")
        logger.info(
            "pushledger \(PushLedgerVersion.current) starting",
            metadata: ["host": "\(config.host)", "port": "\(config.port)"])
        do {
            try await PushLedgerServer.run(config, logger: logger) { port in
                // One machine-readable line, so scripts and tests can find the port.
                let line = "{\"listening\":{\"host\":\"\(config.host)\",\"port\":\(port)}}\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }
        } catch let error as ServerTLSError {
            throw UsageError(error.description)
        }
    }

    /// The flags over the environment over the defaults; the clamping of the numbers is the flags' own.
    func configuration(_ environment: EnvironmentVariables) throws -> ServerConfiguration {
        let host = host ?? environment.string("HOST") ?? "127.0.0.1"
        let port = try port ?? environment.int("PORT", in: Self.portRange) ?? 8080
        let connections = try connections ?? environment.int("PUSHLEDGER_CONNECTIONS", in: 1...Int.max) ?? 16
        let senders = try senders ?? environment.int("PUSHLEDGER_SENDERS") ?? 4
        let batchLease = try batchLease ?? environment.int("PUSHLEDGER_BATCH_LEASE_SECONDS") ?? 30
        let transportName = transport ?? environment.string("PUSHLEDGER_TRANSPORT")
        guard let library = transportName.map({ TransportLibrary(rawValue: $0) }) ?? .standard else {
            throw UsageError(
                "--transport (PUSHLEDGER_TRANSPORT) is one of "
                    + TransportLibrary.allCases.map(\.rawValue).joined(separator: ", ") + "; got \(transportName ?? "")"
            )
        }
        let retention = try retentionInterval ?? environment.int("PUSHLEDGER_RETENTION_INTERVAL_SECONDS") ?? 3600
        let logRetention =
            try logRetentionDays ?? environment.int("PUSHLEDGER_LOG_RETENTION_DAYS", in: 0...Int.max) ?? 0
        let ping = try channelPing ?? environment.int("PUSHLEDGER_CHANNEL_PING_SECONDS", in: 1...86_400) ?? 240
        var config = ServerConfiguration(
            databaseURL: try database.url(), host: host, port: port, maxConnections: connections)
        config.senders = max(1, senders)
        config.batchLease = .seconds(max(1, batchLease))
        config.transport = library
        config.retentionInterval = retention > 0 ? .seconds(retention) : nil
        config.logRetentionDays = logRetention > 0 ? logRetention : nil
        config.metricsToken = metricsToken ?? environment.string("METRICS_TOKEN")
        config.channel.pingInterval = .seconds(ping)
        if let url = channelPublicURL ?? environment.string("PUSHLEDGER_CHANNEL_PUBLIC_URL") {
            // The SDK connects only to ws:// and wss:// URLs (it picks TLS by the `wss` prefix).
            guard url.hasPrefix("ws://") || url.hasPrefix("wss://"), url.count > 6 else {
                throw UsageError("--channel-public-url must be a ws:// or wss:// URL.")
            }
            config.channel.publicURL = url
        }
        typealias Limits = ConnectionLimits.Configuration
        let maxHTTP = try maxConnections ?? environment.int("PUSHLEDGER_MAX_CONNECTIONS", in: 1...Int.max)
        let maxChannel =
            try maxChannelConnections ?? environment.int("PUSHLEDGER_MAX_CHANNEL_CONNECTIONS", in: 1...Int.max)
        config.connections = Limits(
            requestTimeout: .seconds(
                try requestTimeout ?? environment.int("PUSHLEDGER_REQUEST_TIMEOUT_SECONDS", in: 1...86_400)
                    ?? Limits.defaultRequestTimeoutSeconds),
            idleTimeout: .seconds(
                try idleTimeout ?? environment.int("PUSHLEDGER_IDLE_TIMEOUT_SECONDS", in: 1...86_400)
                    ?? Limits.defaultIdleTimeoutSeconds),
            maxConnections: maxHTTP ?? Limits.defaultMaxConnections,
            maxChannelConnections: maxChannel ?? Limits.defaultMaxChannelConnections,
            httpCapIsDefault: maxHTTP == nil, channelCapIsDefault: maxChannel == nil)
        switch (
            tlsCert ?? environment.string("PUSHLEDGER_TLS_CERT"), tlsKey ?? environment.string("PUSHLEDGER_TLS_KEY")
        ) {
        case (let cert?, let key?): config.tls = ServerTLS(certificateFile: cert, keyFile: key)
        case (nil, nil): break
        default: throw UsageError("--tls-cert and --tls-key (PUSHLEDGER_TLS_CERT, PUSHLEDGER_TLS_KEY) go together")
        }
        return config
    }
}
