import Foundation
import Testing

/// The OPPO Push look-alike against docs/vendors.md.
@Suite("OPPO look-alike")
struct OPPOTests {
    @Test("a sha256 sign over app key, timestamp and master secret buys an auth_token; a bad or stale one is 14")
    func auth() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let granted = try client.oppoAuth()
            #expect(try granted.json["code"] as? Int == 0)
            let data = try #require(try granted.json["data"] as? [String: Any])
            #expect((data["auth_token"] as? String)?.isEmpty == false)
            #expect(data["create_time"] is Int)

            #expect(try client.oppoAuth(masterSecret: "wrong").json["code"] as? Int == 14)
            let stale = try client.oppoAuth(timestamp: VendorClient.milliseconds - 11 * 60 * 1000)
            #expect(try stale.json["code"] as? Int == 14)
            let oppoAuth = try #require(try simulator.statistics()["oppoAuth"] as? [String: Any])
            #expect(oppoAuth["accepted"] as? Int == 1)
            #expect((oppoAuth["rejected"] as? [String: Int])?["14"] == 2)
        }
    }

    @Test("sends need an auth_token of their host (else 11) and answer a messageId per registration id")
    func send() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let ids = [registrationID(), registrationID()]
            #expect(try client.oppoSend(regIDs: ids, authToken: nil).json["code"] as? Int == 11)
            let token = try client.oppoToken()
            let globalToken = try client.oppoToken(global: true)
            #expect(try client.oppoSend(regIDs: ids, authToken: globalToken).json["code"] as? Int == 11)
            #expect(try client.oppoSend(regIDs: ids, authToken: token, global: true).json["code"] as? Int == 11)

            for (authToken, global) in [(token, false), (globalToken, true)] {
                let response = try client.oppoSend(regIDs: ids, authToken: authToken, global: global)
                #expect(try response.json["code"] as? Int == 0)
                let results = try #require(try response.json["data"] as? [[String: Any]])
                #expect(results.map { $0["registrationId"] as? String } == ids)
                #expect(results.allSatisfy { ($0["messageId"] as? String)?.isEmpty == false })
            }
        }
    }

    @Test("invalid- is errorCode 10000 and error- 10001 per item; quota- is 33 and unavailable- -2 twice")
    func prefixes() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let token = try client.oppoToken()
            let good = registrationID()
            let invalid = registrationID("invalid-")
            let failing = registrationID("error-")
            let mixed = try client.oppoSend(regIDs: [good, invalid, failing], authToken: token)
            #expect(try mixed.json["code"] as? Int == 0)
            let results = try #require(try mixed.json["data"] as? [[String: Any]])
            #expect(results.count == 3)
            #expect(results[0]["messageId"] != nil && results[0]["errorCode"] == nil)
            #expect(results[1]["errorCode"] as? Int == 10000 && results[1]["registrationId"] as? String == invalid)
            #expect(results[2]["errorCode"] as? Int == 10001 && results[2]["registrationId"] as? String == failing)

            #expect(
                try client.oppoSend(regIDs: [good, registrationID("quota-")], authToken: token)
                    .json["code"] as? Int == 33)
            let retried = [registrationID(), registrationID("unavailable-")]
            #expect(try client.oppoSend(regIDs: retried, authToken: token).json["code"] as? Int == -2)
            #expect(try client.oppoSend(regIDs: retried, authToken: token).json["code"] as? Int == -2)
            #expect(try client.oppoSend(regIDs: retried, authToken: token).json["code"] as? Int == 0)

            let oppo = try #require(try simulator.statistics()["oppo"] as? [String: Any])
            #expect((oppo["rejected"] as? [String: Int]) == ["10000": 1, "10001": 1])
            #expect((oppo["refused"] as? [String: Int]) == ["33": 1, "-2": 2])
        }
    }

    @Test("title and content 50 characters, 1000 messages, target_type 2 with a target_value")
    func limits() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let token = try client.oppoToken()
            let title = VendorClient.oppoMessage(registrationID(), title: String(repeating: "t", count: 51))
            #expect(try client.oppoSend(messages: [title], authToken: token).json["code"] as? Int == 41)
            let content = VendorClient.oppoMessage(registrationID(), content: String(repeating: "内", count: 51))
            #expect(try client.oppoSend(messages: [content], authToken: token).json["code"] as? Int == 41)
            let fifty = VendorClient.oppoMessage(registrationID(), content: String(repeating: "内", count: 50))
            #expect(try client.oppoSend(messages: [fifty], authToken: token).json["code"] as? Int == 0)
            var alias = VendorClient.oppoMessage(registrationID())
            alias["target_type"] = 5
            #expect(try client.oppoSend(messages: [alias], authToken: token).json["code"] as? Int == 41)
            let tooMany = (0...1000).map { "r\($0)" }
            #expect(try client.oppoSend(regIDs: tooMany, authToken: token).json["code"] as? Int == 41)
            #expect(
                try client.oppoSend(regIDs: Array(tooMany.prefix(1000)), authToken: token).json["code"] as? Int == 0)
        }
    }
}
