import ArgumentParser
import Foundation
import Logging
import PushCore
import ServiceLifecycle
import Simulator

struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run the APNs + FCM + WNS + OAuth provider simulator over TLS/HTTP/2 on loopback.",
        discussion: """
            Prints one JSON line when ready: the port, the CA file to trust, and the app settings that point an
            app at the simulator (pushledger app set --app ID key=value ...).
            """)

    @Option(help: "Address to listen on") var host = "127.0.0.1"
    @Option(help: "Port (0 picks a free one)") var port = 0
    @Option(name: .customLong("cert-dir"), help: "Where the generated CA and server certificate live")
    var certificateDirectory: String?
    @Option(
        name: .customLong("apns-key-file"),
        help:
            "A .p8 key whose JWTs the APNs look-alike accepts (repeat, with --apns-key-id and --apns-team-id, for several teams)"
    )
    var apnsKeyFile: [String] = []
    @Option(name: .customLong("apns-key-id")) var apnsKeyId: [String] = []
    @Option(name: .customLong("apns-team-id")) var apnsTeamId: [String] = []
    @Option(name: .customLong("fcm-service-account"), help: "A service-account JSON whose assertions are accepted")
    var serviceAccount: String?
    @Option(name: .customLong("wns-package-sid"), help: "The package SID whose secret the WNS token endpoint takes")
    var wnsPackageSid: String?
    @Option(name: .customLong("wns-secret")) var wnsSecret: String?
    @Option(name: .customLong("latency-ms"), help: "Fixed answer latency") var latency = 0
    @Option(name: .customLong("goaway-after"), help: "Send GOAWAY after this many streams per connection")
    var goAwayAfter: Int?
    @Option(name: .customLong("fail-ratio"), help: "Fraction of requests answered 503 (seeded)") var failRatio = 0.0
    @Flag(name: .customLong("no-recording"), help: "Do not record per-token requests (load tests)") var noRecording =
        false
    @Flag(name: .customLong("no-default-rules"), help: "Disable the built-in error injection by token prefix")
    var noDefaultRules = false

    func run() async throws {
        var config = SimulatorConfiguration(host: host, port: port)
        if let certificateDirectory { config.certificateDirectory = certificateDirectory }
        guard apnsKeyId.count == apnsKeyFile.count, apnsTeamId.isEmpty || apnsTeamId.count == apnsKeyFile.count
        else {
            throw ValidationError("each --apns-key-file goes with an --apns-key-id (and an --apns-team-id, if any)")
        }
        config.apnsKeys = try apnsKeyFile.indices.map { i in
            try APNsVerificationKey(
                keyID: apnsKeyId[i], teamID: apnsTeamId.isEmpty ? nil : apnsTeamId[i], pemFile: apnsKeyFile[i])
        }
        if let serviceAccount {
            config.serviceAccounts = [try ServiceAccountVerificationKey(serviceAccountFile: serviceAccount)]
        }
        switch (wnsPackageSid, wnsSecret) {
        case (let sid?, let secret?): config.wnsCredentials = [WNSCredentials(packageSid: sid, secret: secret)]
        case (nil, nil): break
        default: throw ValidationError("--wns-package-sid and --wns-secret go together")
        }
        config.latency = SimulatorLatency(fixedMilliseconds: latency)
        config.goAwayAfterStreams = goAwayAfter
        if failRatio > 0 { config.failureRatios = FailureRatios(serviceUnavailable: failRatio) }
        if noRecording { config.recording = .off }
        if noDefaultRules { config.rules = [] }
        let logger = Logger(label: "pushledger.simulator")
        let server = SimulatorServer(configuration: config, logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: server)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        async let running: Void = group.run()
        let info = try await server.info()
        let ready: JSON = [
            "simulator": [
                "host": .string(info.host), "port": .int(Int64(info.port)), "caFile": .string(info.caFile),
                "control": .string(info.controlEndpoint),
                "appSettings": .object(info.appSettings.mapValues { .string($0) }),
            ]
        ]
        FileHandle.standardOutput.write(Data((ready.encoded() + "\n").utf8))
        try await running
    }
}
