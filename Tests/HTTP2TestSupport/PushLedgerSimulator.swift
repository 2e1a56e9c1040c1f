import Foundation

/// `pushledger simulate` (the binary named by `PUSHLEDGER_BIN`) as a child process, in certificate mode with no
/// error-injection rules: an APNs look-alike that answers `POST /3/device/<hex token>` with 200, and counts what
/// each token received (`/_sim/stats`). Its flags inject latency and GOAWAYs (docs/simulator.md).
public final class PushLedgerSimulator: @unchecked Sendable {
    public let port: Int
    public let caFile: String
    public var baseURL: String { "https://127.0.0.1:\(port)" }
    private let process: Process
    private let directory: String

    /// The binary, if `PUSHLEDGER_BIN` names one; tests that need the simulator are skipped without it.
    public static var binaryPath: String? {
        guard let path = ProcessInfo.processInfo.environment["PUSHLEDGER_BIN"],
            FileManager.default.isExecutableFile(atPath: path)
        else { return nil }
        return path
    }

    public init(extraArguments: [String] = []) throws {
        guard let binary = Self.binaryPath else { throw SimulatorFailed(reason: "PUSHLEDGER_BIN is not set") }
        directory = NSTemporaryDirectory() + "nghttp2-sim-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let output = directory + "/out.json"
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments =
            ["simulate", "--port", "0", "--cert-dir", directory + "/certs", "--no-default-rules"] + extraArguments
        var environment = ProcessInfo.processInfo.environment
        environment["LOG_LEVEL"] = "warning"
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        // It prints one JSON line with its port and CA file once it listens.
        var info: [String: Any]?
        for _ in 0..<500 where info == nil && process.isRunning {
            if let text = try? String(contentsOfFile: output, encoding: .utf8),
                let line = text.split(separator: "\n").first,
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            {
                info = object["simulator"] as? [String: Any]
            } else {
                usleep(20_000)
            }
        }
        guard let info, let port = info["port"] as? Int, let caFile = info["caFile"] as? String else {
            process.terminate()
            throw SimulatorFailed(reason: (try? String(contentsOfFile: output, encoding: .utf8)) ?? "no output")
        }
        self.port = port
        self.caFile = caFile
    }

    /// A device-token URL of the APNs look-alike: 64 hex digits made from `n`.
    public func deviceURL(_ n: Int) -> String { baseURL + "/3/device/" + Self.token(n) }

    public static func token(_ n: Int) -> String { String(format: "%064x", n) }

    /// `GET /_sim/stats` through curl, not through the client under test.
    public func statistics() throws -> [String: Any] { try control(["\(baseURL)/_sim/stats"]) }

    /// `POST /_sim/config`, e.g. `{"latency":{"fixedMilliseconds":2000}}`.
    @discardableResult
    public func configure(_ json: String) throws -> [String: Any] {
        try control(["-X", "POST", "-H", "content-type: application/json", "--data", json, "\(baseURL)/_sim/config"])
    }

    /// Requests the simulator counted per token (tokens it recorded, up to 10,000).
    public func requestsPerToken() throws -> [String: Int] {
        let tokens = try statistics()["tokens"] as? [String: [String: Any]] ?? [:]
        return tokens.compactMapValues { $0["requests"] as? Int }
    }

    /// The header lines of the last request recorded for `token` (names in lower case, as received).
    public func recordedHeaders(token: String) throws -> [String: String] {
        let recorded = try control(["\(baseURL)/_sim/requests?token=\(token)"])["recorded"] as? [[String: Any]]
        return recorded?.last?["headers"] as? [String: String] ?? [:]
    }

    private func control(_ arguments: [String]) throws -> [String: Any] {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-sS", "--cacert", caFile] + arguments
        let pipe = Pipe()
        curl.standardOutput = pipe
        try curl.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw SimulatorFailed(reason: String(decoding: data, as: UTF8.self))
        }
        return object
    }

    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}

/// The simulator did not start, or its control endpoint did not answer with JSON.
public struct SimulatorFailed: Error {
    public let reason: String
}
