import Foundation
import Simulator
import Testing

@Suite("HTTP/2 GOAWAY injection and load")
struct GoAwayTests {
    @Test("after N streams the connection sends GOAWAY and curl reconnects for the rest")
    func curlReconnectsAfterGoAway() async throws {
        try await SimulatorHarness.with({ $0.goAwayAfterStreams = 2 }) { simulator in
            let url = simulator.baseURL + "/3/device/\(deviceToken())"
            var arguments = [
                "--http2", "--cacert", simulator.info.caFile, "-sS", "-o", "/dev/null", "-o", "/dev/null",
                "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null",
                "-w", "%{http_code} %{num_connects}\n", "-H", "apns-topic: t", "--data-binary", #"{"aps":{}}"#,
            ]
            arguments += Array(repeating: url, count: 5)
            let output = try CommandLineTool.run("curl", arguments)
            #expect(output.exitCode == 0)
            let lines = output.standardOutput.split(separator: "\n")
            #expect(lines.count == 5)
            #expect(lines.allSatisfy { $0.hasPrefix("200 ") })
            // New connections were needed for requests 3 and 5.
            #expect(lines.map { $0.split(separator: " ")[1] } == ["1", "0", "1", "0", "1"])
            let stats = try simulator.statistics()
            #expect(stats["goAways"] as? Int == 2)
        }
    }

    @Test("nghttp sees a GOAWAY with NO_ERROR after the configured number of streams")
    func nghttpSeesGoAway() async throws {
        try await SimulatorHarness.with({ $0.goAwayAfterStreams = 3 }) { simulator in
            // nghttp fetches a repeated URL once, so the three streams use three queries. It cannot take a CA file;
            // the chain itself is checked by the curl tests.
            let urls = (1...3).map { simulator.baseURL + "/_sim/stats?n=\($0)" }
            let output = try CommandLineTool.run("nghttp", ["-nvy"] + urls)
            #expect(output.exitCode == 0)
            #expect(output.standardOutput.contains("recv GOAWAY frame"))
            #expect(output.standardOutput.contains("error_code=NO_ERROR"))
            #expect(output.standardOutput.components(separatedBy: ":status: 200").count - 1 == 3)
        }
    }

    @Test("the connection's receive window is opened wide at once, so many small bodies are never held back")
    func connectionWindowOpensWide() async throws {
        try await SimulatorHarness.with { simulator in
            let output = try CommandLineTool.run("nghttp", ["-nvy", simulator.baseURL + "/_sim/stats"])
            #expect(output.exitCode == 0)
            // nghttp prints each frame received; the window update on stream 0 comes before the answer, raising the
            // connection's window from HTTP/2's 65,535 bytes to 16 MiB: 16,777,216 - 65,535 = 16,711,681.
            let update =
                "recv WINDOW_UPDATE frame <length=4, flags=0x00, stream_id=0>\n"
                + "          (window_size_increment=16711681)"
            let text = output.standardOutput
            #expect(text.contains(update), "\(text)")
            let answered = try #require(text.range(of: ":status: 200"))
            #expect(try #require(text.range(of: update)).lowerBound < answered.lowerBound)
        }
    }

    @Test("streams the client sent past the GOAWAY's last stream are refused unprocessed, never counted")
    func streamsPastGoAwayAreRefused() async throws {
        try await SimulatorHarness.with({
            $0.goAwayAfterStreams = 20
            $0.recording = .off
        }) { simulator in
            // 50 streams leave at once, so 30 of them reach the simulator after its GOAWAY admitted only 20.
            let load = try H2Load.run(simulator: simulator, requests: 50, clients: 1, streams: 50)
            let stats = try simulator.statistics()
            #expect(stats["goAways"] as? Int == 1)
            #expect(load.succeeded == 20, "\(load.output)")
            // What the provider processed is exactly what the client was answered: a refused stream a client
            // re-sends elsewhere is no duplicate.
            #expect((stats["apns"] as? [String: Any])?["accepted"] as? Int == load.succeeded)
        }
    }

    @Test("h2load: every multiplexed request on two connections is answered")
    func loadSmoke() async throws {
        try await SimulatorHarness.with({ $0.recording = .off }) { simulator in
            let load = try H2Load.run(simulator: simulator, requests: 4000, clients: 2, streams: 50)
            #expect(load.succeeded == 4000, "\(load.output)")
            let stats = try simulator.statistics()
            #expect((stats["apns"] as? [String: Any])?["accepted"] as? Int == 4000)
        }
    }
}
