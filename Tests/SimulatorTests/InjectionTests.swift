import Foundation
import Simulator
import Testing

@Suite("Error injection")
struct InjectionTests {
    @Test(
        "built-in APNs token rules answer with Apple's status and reason",
        arguments: [
            ("bad0", 400, "BadDeviceToken"),
            ("dead", 410, "Unregistered"),
            ("0ff0", 410, "ExpiredToken"),
            ("70b1c", 400, "DeviceTokenNotForTopic"),
            ("5000", 500, "InternalServerError"),
        ]
    )
    func apnsRules(prefix: String, status: Int, reason: String) async throws {
        try await SimulatorHarness.with { simulator in
            let token = deviceToken(prefix)
            for _ in 0..<3 {
                let response = try simulator.push(token: token)
                #expect(response.status == status)
                let body = try response.json
                #expect(body["reason"] as? String == reason)
                if status == 410 {
                    let timestamp = try #require(body["timestamp"] as? Int)
                    let now = Int(Date().timeIntervalSince1970 * 1000)
                    #expect(abs(now - timestamp) < 60_000)
                } else {
                    #expect(body["timestamp"] == nil)
                }
            }
        }
    }

    @Test(
        "4290 and 5030 tokens fail their first two attempts and then succeed",
        arguments: [
            ("4290", 429, "TooManyRequests"), ("5030", 503, "ServiceUnavailable"),
        ])
    func retryableRules(prefix: String, status: Int, reason: String) async throws {
        try await SimulatorHarness.with { simulator in
            let token = deviceToken(prefix)
            for _ in 0..<2 {
                let response = try simulator.push(token: token)
                #expect(response.status == status)
                #expect(try response.json["reason"] as? String == reason)
            }
            #expect(try simulator.push(token: token).status == 200)
            #expect(try simulator.push(token: token).status == 200)
            // The count is per token: a fresh token starts over.
            #expect(try simulator.push(token: deviceToken(prefix)).status == status)
        }
    }

    @Test("rules can be replaced at run time")
    func customRules() async throws {
        try await SimulatorHarness.with { simulator in
            let config = try simulator.configure(
                #"{"rules":[{"provider":"apns","substring":"beef","status":410,"reason":"Unregistered"}]}"#
            )
            #expect(config.status == 200)
            #expect(try simulator.push(token: deviceToken("bad0")).status == 200)
            let token = "00beef" + String(deviceToken().prefix(58))
            #expect(try simulator.push(token: token).status == 410)
            #expect(try simulator.configure(#"{"rules":"defaults"}"#).status == 200)
            #expect(try simulator.push(token: deviceToken("bad0")).status == 400)
        }
    }

    @Test("a failure ratio of 1 fails every request, and seeded ratios repeat exactly")
    func failureRatios() async throws {
        try await SimulatorHarness.with { simulator in
            _ = try simulator.configure(#"{"failureRatios":{"serviceUnavailable":1}}"#)
            let response = try simulator.push(token: deviceToken())
            #expect(response.status == 503)
            #expect(try response.json["reason"] as? String == "ServiceUnavailable")

            func run() throws -> [Int] {
                _ = try simulator.configure(
                    #"{"failureRatios":{"tooManyRequests":0.3,"internalServerError":0.2,"#
                        + #""serviceUnavailable":0,"seed":42}}"#)
                return try (0..<30).map { _ in try simulator.push(token: deviceToken()).status }
            }
            let first = try run()
            _ = try simulator.request("POST", "/_sim/reset")
            let second = try run()
            #expect(first == second)
            #expect(first.contains(429) && first.contains(500) && first.contains(200))
        }
    }

    @Test("an invalid config is refused and changes nothing")
    func invalidConfig() async throws {
        try await SimulatorHarness.with { simulator in
            let response = try simulator.configure(#"{"failureRatios":{"tooManyRequests":2}}"#)
            #expect(response.status == 400)
            #expect(try simulator.push(token: deviceToken()).status == 200)
        }
    }

    @Test("latency delays each answer but 50 concurrent streams wait together, not in turn")
    func latency() async throws {
        try await SimulatorHarness.with { simulator in
            _ = try simulator.configure(#"{"latency":{"fixedMilliseconds":300,"jitterMilliseconds":50}}"#)
            let output = try CommandLineTool.run(
                "curl",
                [
                    "--http2", "--cacert", simulator.info.caFile, "-sS", "-o", "/dev/null",
                    "-w", "%{time_total} %{time_pretransfer}", "-H", "apns-topic: t",
                    "--data-binary", #"{"aps":{}}"#, simulator.baseURL + "/3/device/\(deviceToken())",
                ]
            )
            let times = output.standardOutput.split(separator: " ").compactMap { Double($0) }
            #expect(times.count == 2)
            #expect(times.count == 2 && times[0] - times[1] >= 0.29)

            let load = try H2Load.run(simulator: simulator, requests: 50, clients: 1, streams: 50)
            #expect(load.succeeded == 50)
            // Serialised answers would take 50 × 300 ms; scheduled ones overlap.
            #expect(load.seconds >= 0.29 && load.seconds < 3)
        }
    }
}
