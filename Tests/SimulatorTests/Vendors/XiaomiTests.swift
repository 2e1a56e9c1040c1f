import Foundation
import Testing

/// The Xiaomi MiPush look-alike against docs/vendors.md.
@Suite("Xiaomi look-alike")
struct XiaomiTests {
    @Test("a send with the app secret and package is ok, at the China and the global host alike")
    func send() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            for global in [false, true] {
                let response = try client.miSend(regIDs: [registrationID(), registrationID()], global: global)
                #expect(response.status == 200)
                let body = try response.json
                #expect(body["result"] as? String == "ok")
                #expect(body["code"] as? Int == 0)
                let data = try #require(body["data"] as? [String: Any])
                #expect((data["id"] as? String)?.isEmpty == false)
                #expect(data["bad_regids"] == nil)
            }
            let mi = try #require(try simulator.statistics()["mi"] as? [String: Any])
            #expect(mi["httpRequests"] as? Int == 2)
            #expect(mi["accepted"] as? Int == 4)
        }
    }

    @Test("a wrong secret is 21301, another package 10017")
    func refusals() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let wrongKey = try client.miSend(regIDs: [registrationID()], secret: "wrong")
            #expect(try wrongKey.json["result"] as? String == "error")
            #expect(try wrongKey.json["code"] as? Int == 21301)
            let wrongPackage = try client.miSend(regIDs: [registrationID()], packageName: "com.example.other")
            #expect(try wrongPackage.json["code"] as? Int == 10017)
        }
    }

    @Test("invalid- ids are bad_regids; quota- is 200001, error- 10017, unavailable- 10002 twice then ok")
    func prefixes() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let invalid = [registrationID("invalid-"), registrationID("invalid-")]
            let mixed = try client.miSend(regIDs: [registrationID(), invalid[0], registrationID(), invalid[1]])
            #expect(try mixed.json["code"] as? Int == 0)
            let data = try #require(try mixed.json["data"] as? [String: Any])
            #expect(Set((data["bad_regids"] as? String ?? "").split(separator: ",").map(String.init)) == Set(invalid))

            let quota = try client.miSend(regIDs: [registrationID(), registrationID("quota-")])
            #expect(try quota.json["code"] as? Int == 200_001)
            let failed = try client.miSend(regIDs: [registrationID(), registrationID("error-")])
            #expect(try failed.json["code"] as? Int == 10017)

            let retried = [registrationID(), registrationID("unavailable-")]
            #expect(try client.miSend(regIDs: retried).json["code"] as? Int == 10002)
            #expect(try client.miSend(regIDs: retried).json["code"] as? Int == 10002)
            #expect(try client.miSend(regIDs: retried).json["code"] as? Int == 0)

            let mi = try #require(try simulator.statistics()["mi"] as? [String: Any])
            #expect((mi["rejected"] as? [String: Int])?["bad_regids"] == 2)
            #expect(mi["refused"] as? [String: Int] == ["200001": 1, "10017": 1, "10002": 2])
        }
    }

    @Test("title 50 and description 128 characters at most, 1000 regids at most")
    func limits() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let id = [registrationID()]
            #expect(try client.miSend(regIDs: id, title: String(repeating: "标", count: 50)).json["code"] as? Int == 0)
            let longTitle = try client.miSend(regIDs: id, title: String(repeating: "标", count: 51))
            #expect(try longTitle.json["code"] as? Int == 10017)
            let longDescription = try client.miSend(regIDs: id, description: String(repeating: "d", count: 129))
            #expect(try longDescription.json["code"] as? Int == 10017)
            let tooMany = try client.miSend(regIDs: (0...1000).map { "r\($0)" })
            #expect(try tooMany.json["code"] as? Int == 10017)
        }
    }
}
