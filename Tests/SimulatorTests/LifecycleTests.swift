import Foundation
import Logging
import Simulator
import Testing

@Suite("Service lifecycle")
struct LifecycleTests {
    @Test("shutdown waits for an in-flight delayed answer, then run() returns and the port is closed")
    func drainsOnShutdown() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifecycle-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var logger = Logger(label: "simulator-tests")
        logger.logLevel = .warning
        let server = SimulatorServer(
            configuration: SimulatorConfiguration(
                certificateDirectory: directory, latency: SimulatorLatency(fixedMilliseconds: 700)
            ),
            logger: logger
        )
        let running = Task { try await server.run() }
        let info = try await server.info()
        #expect(try await server.boundPort() == info.port)

        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = [
            "curl", "--http2", "--cacert", info.caFile, "-sS", "-o", "/dev/null", "-w", "%{http_code}",
            "-H", "apns-topic: t", "--data-binary", #"{"aps":{}}"#, "https://127.0.0.1:\(info.port)/3/device/abcd",
        ]
        let output = Pipe()
        curl.standardOutput = output
        try curl.run()
        // Let the request reach the simulator before shutting down.
        try await Task.sleep(for: .milliseconds(300))
        running.cancel()
        try await running.value
        let status = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        curl.waitUntilExit()
        #expect(status == "200")

        let after = try CommandLineTool.run(
            "curl", ["--cacert", info.caFile, "-sS", "-o", "/dev/null", "https://127.0.0.1:\(info.port)/_sim/stats"]
        )
        // 7 (connection refused), unless a test running alongside has been given the freed port meanwhile: its
        // listener then fails our TLS handshake (35). Either way this simulator no longer answers.
        #expect([7, 35].contains(after.exitCode), "curl exit \(after.exitCode)")
        await #expect(throws: (any Error).self) { try await server.info() }
    }

    @Test("a port already in use makes run() and info() throw")
    func bindFailure() async throws {
        try await SimulatorHarness.with { simulator in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clash-\(UUID().uuidString)")
                .path
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let clash = SimulatorServer(
                configuration: SimulatorConfiguration(port: simulator.info.port, certificateDirectory: directory)
            )
            await #expect(throws: (any Error).self) { try await clash.run() }
            await #expect(throws: (any Error).self) { try await clash.info() }
        }
    }
}
