import Foundation
import PushCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real `pushledger` binary (`PUSHLEDGER_BIN`, else .build/debug/pushledger) serving on a free port
/// against a test database; stopped by `stop()`.
public final class ServerProcess: @unchecked Sendable {
    public let process: Process
    public let port: Int
    public let databaseURL: String
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public static var binaryPath: String {
        if let path = ProcessInfo.processInfo.environment["PUSHLEDGER_BIN"] { return path }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/pushledger").path
    }

    /// Runs a `pushledger` subcommand to completion and returns its standard output.
    @discardableResult
    public static func command(_ arguments: [String], databaseURL: String) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binaryPath)
        p.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["DATABASE_URL"] = databaseURL
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    public init(databaseURL: String, extraArguments: [String] = [], environment: [String: String] = [:]) throws {
        self.databaseURL = databaseURL
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binaryPath)
        p.arguments = ["serve", "--host", "127.0.0.1", "--port", "0"] + extraArguments
        var env = ProcessInfo.processInfo.environment
        env["DATABASE_URL"] = databaseURL
        env["LOG_LEVEL"] = env["LOG_LEVEL"] ?? "warning"
        for (k, v) in environment { env[k] = v }
        p.environment = env
        let output = try ChildOutput()
        p.standardOutput = try output.handle()
        try p.run()
        process = p
        // The server prints one JSON line with its port once it listens.
        guard let port = try output.waitForJSON(key: "listening", process: p)["port"]?.intValue else {
            p.terminate()
            throw ServerFailure.didNotStart(output.text)
        }
        self.port = Int(port)
    }

    /// Stops the server with `signal` (SIGTERM by default, as a service manager does; SIGINT as Ctrl-C
    /// does) and waits for it to exit.
    public func stop(signal: Int32 = SIGTERM) {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, signal)
            process.waitUntilExit()
        }
    }

    /// Kills the server with SIGKILL, as a crash would.
    public func kill() {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

public enum ServerFailure: Error {
    case didNotStart(String)
}
