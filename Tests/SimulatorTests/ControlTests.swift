import Foundation
import Simulator
import Testing

@Suite("Control endpoints and statistics")
struct ControlTests {
    @Test("stats count requests, acceptances and rejections per provider and token")
    func statisticsCount() async throws {
        try await SimulatorHarness.with { simulator in
            let good = deviceToken()
            let gone = deviceToken("dead")
            for _ in 0..<3 { #expect(try simulator.push(token: good).status == 200) }
            for _ in 0..<2 { #expect(try simulator.push(token: gone).status == 410) }
            #expect(try simulator.push(token: "zz").status == 400)

            let stats = try simulator.statistics()
            let apns = try #require(stats["apns"] as? [String: Any])
            #expect(apns["requests"] as? Int == 6)
            #expect(apns["accepted"] as? Int == 3)
            #expect(apns["rejected"] as? [String: Int] == ["Unregistered": 2, "BadDeviceToken": 1])
            #expect(stats["distinctTokens"] as? Int == 3)
            let tokens = try #require(stats["tokens"] as? [String: [String: Int]])
            #expect(tokens[good] == ["requests": 3, "accepted": 3])
            #expect(tokens[gone] == ["requests": 2, "accepted": 0])
            #expect((stats["connections"] as? Int ?? 0) >= 6)

            // The in-process API reports the same numbers.
            let direct = simulator.server.statistics()
            #expect(direct.apns.requests == 6 && direct.apns.rejected["Unregistered"] == 2)
        }
    }

    @Test("recorded requests show path, headers and payload for a token")
    func recordedRequests() async throws {
        try await SimulatorHarness.with { simulator in
            let token = deviceToken()
            _ = try simulator.push(token: token, headers: ["apns-collapse-id": "c1"], payload: #"{"aps":{"badge":7}}"#)
            let response = try simulator.request("GET", "/_sim/requests?token=\(token)")
            #expect(response.status == 200)
            let body = try response.json
            #expect(body["requests"] as? Int == 1)
            let recorded = try #require(body["recorded"] as? [[String: Any]])
            #expect(recorded.count == 1)
            #expect(recorded[0]["path"] as? String == "/3/device/\(token)")
            #expect(recorded[0]["status"] as? Int == 200)
            #expect((recorded[0]["headers"] as? [String: String])?["apns-collapse-id"] == "c1")
            let payload = try #require(recorded[0]["payload"] as? [String: Any])
            #expect((payload["aps"] as? [String: Any])?["badge"] as? Int == 7)
        }
    }

    @Test("only the last requestsPerToken requests are kept per token")
    func recordingIsBounded() async throws {
        try await SimulatorHarness.with({ $0.recording.requestsPerToken = 2 }) { simulator in
            let token = deviceToken()
            for badge in 1...4 { _ = try simulator.push(token: token, payload: #"{"aps":{"badge":\#(badge)}}"#) }
            let body = try simulator.request("GET", "/_sim/requests?token=\(token)").json
            #expect(body["requests"] as? Int == 4)
            let recorded = try #require(body["recorded"] as? [[String: Any]])
            let badges = recorded.compactMap {
                (($0["payload"] as? [String: Any])?["aps"] as? [String: Any])?["badge"] as? Int
            }
            #expect(badges == [3, 4])
        }
    }

    @Test("with recording off only totals are kept")
    func recordingOff() async throws {
        try await SimulatorHarness.with({ $0.recording = .off }) { simulator in
            let token = deviceToken()
            _ = try simulator.push(token: token)
            let stats = try simulator.statistics()
            #expect((stats["apns"] as? [String: Any])?["accepted"] as? Int == 1)
            #expect(stats["distinctTokens"] as? Int == 0)
            #expect(stats["tokens"] == nil)
            let recorded = try simulator.request("GET", "/_sim/requests?token=\(token)").json["recorded"] as? [Any]
            #expect(recorded?.isEmpty == true)
        }
    }

    @Test("reset zeroes the counts and the retry attempts")
    func reset() async throws {
        try await SimulatorHarness.with { simulator in
            let token = deviceToken("4290")
            #expect(try simulator.push(token: token).status == 429)
            #expect(try simulator.request("POST", "/_sim/reset").status == 200)
            let stats = try simulator.statistics()
            #expect((stats["apns"] as? [String: Any])?["requests"] as? Int == 0)
            #expect(try simulator.push(token: token).status == 429)
        }
    }

    @Test("config and info endpoints describe the running simulator")
    func configAndInfo() async throws {
        try await SimulatorHarness.with { simulator in
            let config = try simulator.request("GET", "/_sim/config").json
            #expect((config["rules"] as? [Any])?.count == InjectionRule.defaults.count)
            #expect(config["goAwayAfterStreams"] is NSNull)
            let changed = try simulator.configure(#"{"goAwayAfterStreams":5,"recording":{"enabled":false}}"#).json
            #expect(changed["goAwayAfterStreams"] as? Int == 5)
            #expect((changed["recording"] as? [String: Any])?["enabled"] as? Bool == false)

            let info = try simulator.request("GET", "/_sim/info").json
            #expect(info["caFile"] as? String == simulator.info.caFile)
            #expect(info["fcmTokenEndpoint"] as? String == "https://127.0.0.1:\(simulator.info.port)/token")
            let settings = try #require(info["appSettings"] as? [String: String])
            #expect(settings["apns.ca_file"] == simulator.info.caFile)
            #expect(settings["apns.endpoint"] == "https://127.0.0.1:\(simulator.info.port)")
        }
    }

    @Test("unknown paths get APNs' BadPath")
    func unknownPath() async throws {
        try await SimulatorHarness.with { simulator in
            let response = try simulator.request("GET", "/nowhere")
            #expect(response.status == 404)
            #expect(try response.json["reason"] as? String == "BadPath")
        }
    }
}
