import Foundation
import Testing

/// The Meizu Flyme Push look-alike against docs/vendors.md.
@Suite("Meizu look-alike")
struct MeizuTests {
    @Test("a signed notification is code 200 with an empty value; unsigned or wrongly signed is 1006")
    func signature() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let ids = [registrationID(), registrationID()]
            let sent = try client.mzSend(pushIDs: ids)
            #expect(sent.status == 200)
            #expect(try sent.json["code"] as? String == "200")
            #expect((try sent.json["value"] as? [String: Any])?.isEmpty == true)
            let code1 = try client.mzSend(pushIDs: ids, secret: nil).json["code"] as? String
            #expect(code1 == "1006")
            let code2 = try client.mzSend(pushIDs: ids, secret: "wrong").json["code"] as? String
            #expect(code2 == "1006")
            let passThrough = try client.mzSend(
                pushIDs: ids, messageJson: #"{"title":"t","content":"{\"alert\":\"hi\"}"}"#, passThrough: true)
            #expect(try passThrough.json["code"] as? String == "200")
        }
    }

    @Test("invalid- ids are listed under 110003 and error- under 501; unavailable- is 110010 twice")
    func prefixes() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let invalid = registrationID("invalid-")
            let failing = registrationID("error-")
            let mixed = try client.mzSend(pushIDs: [registrationID(), invalid, failing, registrationID("quota-")])
            #expect(try mixed.json["code"] as? String == "200")
            let value = try #require(try mixed.json["value"] as? [String: [String]])
            #expect(value == ["110003": [invalid], "501": [failing]])

            let retried = [registrationID(), registrationID("unavailable-")]
            let code3 = try client.mzSend(pushIDs: retried).json["code"] as? String
            #expect(code3 == "110010")
            let code4 = try client.mzSend(pushIDs: retried).json["code"] as? String
            #expect(code4 == "110010")
            let code5 = try client.mzSend(pushIDs: retried).json["code"] as? String
            #expect(code5 == "200")

            let mz = try #require(try simulator.statistics()["mz"] as? [String: Any])
            #expect(mz["accepted"] as? Int == 4)
            #expect(mz["rejected"] as? [String: Int] == ["110003": 1, "501": 1])
            #expect(mz["refused"] as? [String: Int] == ["110010": 2])
        }
    }

    @Test("title 32 and content 100 characters, 1000 pushIds at most")
    func limits() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let ids = [registrationID()]
            let title32 = VendorClient.meizuNotification(title: String(repeating: "标", count: 32))
            let code6 = try client.mzSend(pushIDs: ids, messageJson: title32).json["code"] as? String
            #expect(code6 == "200")
            let title33 = VendorClient.meizuNotification(title: String(repeating: "标", count: 33))
            let code7 = try client.mzSend(pushIDs: ids, messageJson: title33).json["code"] as? String
            #expect(code7 == "1005")
            let content = VendorClient.meizuNotification(content: String(repeating: "c", count: 101))
            let code8 = try client.mzSend(pushIDs: ids, messageJson: content).json["code"] as? String
            #expect(code8 == "1005")
            let tooMany = (0...1000).map { "p\($0)" }
            let code9 = try client.mzSend(pushIDs: tooMany).json["code"] as? String
            #expect(code9 == "1005")
        }
    }
}
