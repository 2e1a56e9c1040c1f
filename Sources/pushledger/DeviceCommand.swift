import ArgumentParser
import Foundation
import HummingbirdWSClient
import Logging
import PushCore

/// `pushledger device`: a reference client of the own channel (SPEC §12.2). It saves its installation like
/// an SDK would (to learn its channel token), connects like a phone, prints every frame that arrives as one
/// JSON line and acknowledges each message. With `--connections N` it becomes a load generator.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Connect to the own device channel like a phone and print what arrives.",
        discussion: """
            Without --token the installation is saved first (POST /1.1/installations with --key), which answers \
            its channel token when the save creates it or the key is the master key ("<masterKey>,master"). \
            Every frame is printed as one JSON line on stdout; messages are acknowledged unless --no-ack. \
            With --connections N, N installations (<installation>-1 … -N) connect at once and one summary line \
            is printed instead: connect time, messages received and delivery latency (from a number \
            `sentAt`, milliseconds since 1970, in the pushed data).
            """)

    @Option(help: "The server's base URL.") var url = "http://127.0.0.1:8080"
    @Option(help: "App id.") var app: String
    @Option(help: "The installationId to connect as.") var installation: String
    @Option(help: "X-LC-Key to save the installation with: the app key, or \"<masterKey>,master\".")
    var key: String?
    @Option(help: "The channel token, when already known (skips saving the installation).") var token: String?
    @Option(help: "deviceType of the saved installation.") var deviceType = "android"
    @Option(help: "Channels of the saved installation, comma-separated.") var channels: String?
    @Flag(help: "Print messages without acknowledging them.") var noAck = false
    @Option(help: "Exit after this many messages (all connections together).") var count: Int?
    @Option(help: "Exit after this many seconds.") var timeout: Double?
    @Option(help: "Open this many connections (load mode).") var connections: Int = 1
    @Option(help: "PEM CA bundle to trust for an https --url (default: the system's).") var caFile: String?
    @Flag(help: "Save the installations and exit without connecting (a benchmark's set-up).") var saveOnly = false

    func validate() throws {
        if token == nil && key == nil { throw ValidationError("Give --key (to save the installation) or --token.") }
        if saveOnly && key == nil { throw ValidationError("--save-only saves with --key.") }
        if connections < 1 { throw ValidationError("--connections must be at least 1.") }
        if connections > 1 && token != nil {
            throw ValidationError("--token names one device; drop it with --connections.")
        }
        guard let parsed = URL(string: url), let scheme = parsed.scheme, ["http", "https"].contains(scheme) else {
            throw ValidationError("--url must be an http or https URL.")
        }
        // The WebSocket client sends the host as TLS server name, which may not be an IP address.
        if scheme == "https", let host = parsed.host, host.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" }) {
            throw ValidationError(
                "--url with https needs a host name, not an IP address (e.g. https://localhost:PORT).")
        }
    }

    func run() async throws {
        let registrar = DeviceRegistrar(
            baseURL: url, appId: app, key: key, deviceType: deviceType, caFile: caFile,
            channels: channels.map { $0.split(separator: ",").map(String.init) } ?? [])
        let run = DeviceRun(
            channelURL: DeviceRun.channelURL(base: url, appId: app), acknowledge: !noAck, limit: count,
            timeout: timeout.map { .milliseconds(Int64($0 * 1000)) }, load: connections > 1, caFile: caFile)
        do {
            if saveOnly {
                let ids = connections == 1 ? [installation] : (1...connections).map { "\(installation)-\($0)" }
                let saved = try await registrar.registerAll(ids)
                print(#"{"saved":\#(saved.count)}"#)
                return
            }
            if connections == 1 {
                let token: String
                if let given = self.token { token = given } else { token = try await registrar.register(installation) }
                try await run.single(installationId: installation, token: token)
            } else {
                let ids = (1...connections).map { "\(installation)-\($0)" }
                try await run.load(devices: try await registrar.registerAll(ids))
            }
        } catch let error as DeviceFailure {
            throw CommandFailure.exit(error.message)
        }
    }
}

struct DeviceFailure: Error {
    let message: String
}
