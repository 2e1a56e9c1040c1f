import Foundation
import Logging
import Simulator

/// A simulator on an ephemeral port with its own certificate directory, driven with the curl command-line tool.
struct SimulatorHarness {
    let server: SimulatorServer
    let info: SimulatorInfo

    /// Starts a simulator, runs `body` against it, then cancels it (which shuts it down) and removes its files.
    static func with<Result>(
        _ configure: (inout SimulatorConfiguration) throws -> Void = { _ in },
        _ body: (SimulatorHarness) async throws -> Result
    ) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("simulator-tests-\(UUID().uuidString)").path
        var configuration = SimulatorConfiguration(port: 0, certificateDirectory: directory)
        try configure(&configuration)
        var logger = Logger(label: "simulator-tests")
        logger.logLevel = .warning
        let server = SimulatorServer(configuration: configuration, logger: logger)
        let running = Task { try await server.run() }
        defer {
            running.cancel()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let harness = SimulatorHarness(server: server, info: try await server.info())
        let result = try await body(harness)
        running.cancel()
        _ = await running.result
        return result
    }

    var baseURL: String { "https://127.0.0.1:\(self.info.port)" }

    /// Sends one request with curl over HTTP/2 (or HTTP/1.1), verifying TLS against the simulator's CA.
    func request(
        _ method: String = "POST",
        _ path: String,
        headers: [String: String] = [:],
        body: String? = nil,
        http1: Bool = false,
        extraArguments: [String] = []
    ) throws -> CurlResponse {
        var arguments = [http1 ? "--http1.1" : "--http2", "--cacert", self.info.caFile, "-sS", "-i", "-X", method]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            arguments += ["-H", "\(name): \(value)"]
        }
        if let body {
            arguments += ["--data-binary", body]
        }
        arguments += extraArguments
        arguments.append(self.baseURL + path)
        let output = try CommandLineTool.run("curl", arguments)
        guard output.exitCode == 0 else {
            throw CurlFailure(exitCode: output.exitCode, message: output.standardError)
        }
        return try CurlResponse(parsing: output.standardOutput)
    }

    /// An APNs push with valid headers and payload unless overridden.
    func push(
        token: String,
        headers: [String: String] = [:],
        payload: String = #"{"aps":{"alert":"hello"}}"#
    ) throws -> CurlResponse {
        let defaults = ["apns-topic": "com.example.app", "apns-push-type": "alert", "apns-priority": "10"]
        return try self.request(
            "POST", "/3/device/\(token)", headers: defaults.merging(headers) { _, override in override }, body: payload
        )
    }

    func statistics() throws -> [String: Any] {
        try self.request("GET", "/_sim/stats").json
    }

    func configure(_ json: String) throws -> CurlResponse {
        try self.request("POST", "/_sim/config", headers: ["content-type": "application/json"], body: json)
    }

    struct CurlFailure: Error, CustomStringConvertible {
        var exitCode: Int32
        var message: String
        var description: String { "curl exited \(self.exitCode): \(self.message)" }
    }
}

/// A 64-digit hex device token starting with `prefix`, unique per call so tests never share per-token state.
func deviceToken(_ prefix: String = "") -> String {
    let random = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    let filler = random + random
    return prefix + String(filler.prefix(64 - prefix.count))
}
