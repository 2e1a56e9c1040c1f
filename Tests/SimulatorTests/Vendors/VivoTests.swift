import Foundation
import Testing

/// The vivo Push look-alike against docs/vendors.md.
@Suite("vivo look-alike")
struct VivoTests {
    @Test("an md5 sign over appId, appKey, timestamp and appSecret buys an authToken; a bad one is 10200")
    func auth() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let granted = try client.vivoAuth()
            #expect(try granted.json["result"] as? Int == 0)
            #expect((try granted.json["authToken"] as? String)?.isEmpty == false)
            #expect(try client.vivoAuth(secret: "wrong").json["result"] as? Int == 10200)
            let vivoAuth = try #require(try simulator.statistics()["vivoAuth"] as? [String: Any])
            #expect(vivoAuth["accepted"] as? Int == 1)
        }
    }

    @Test("one device: result 0 with a taskId; no authToken is 10000, invalid- 10302, error- 10055")
    func singleSend() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            #expect(try client.vivoSend(regID: registrationID(), authToken: nil).json["result"] as? Int == 10000)
            let token = try client.vivoToken()
            let sent = try client.vivoSend(regID: registrationID(), authToken: token)
            #expect(try sent.json["result"] as? Int == 0)
            #expect((try sent.json["taskId"] as? String)?.isEmpty == false)
            let invalid = try client.vivoSend(regID: registrationID("invalid-"), authToken: token)
            #expect(try invalid.json["result"] as? Int == 10302)
            let failed = try client.vivoSend(regID: registrationID("error-"), authToken: token)
            #expect(try failed.json["result"] as? Int == 10055)
            let quota = try client.vivoSend(regID: registrationID("quota-"), authToken: token)
            #expect(try quota.json["result"] as? Int == 10070)
            let retried = registrationID("unavailable-")
            #expect(try client.vivoSend(regID: retried, authToken: token).json["result"] as? Int == 10040)
            #expect(try client.vivoSend(regID: retried, authToken: token).json["result"] as? Int == 10040)
            #expect(try client.vivoSend(regID: retried, authToken: token).json["result"] as? Int == 0)
        }
    }

    @Test("a list push after saveListPayload lists invalid- ids in invalidUsers and delivers the others")
    func listPush() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let token = try client.vivoToken()
            let invalid = registrationID("invalid-")
            let response = try client.vivoList(regIDs: [registrationID(), invalid, registrationID()], authToken: token)
            #expect(try response.json["result"] as? Int == 0)
            let users = try #require(try response.json["invalidUsers"] as? [[String: Any]])
            #expect(users.count == 1)
            #expect(users.first?["userid"] as? String == invalid)
            #expect(users.first?["status"] as? Int == 1)

            let quota = try client.vivoList(regIDs: [registrationID(), registrationID("quota-")], authToken: token)
            #expect(try quota.json["result"] as? Int == 10070)
            let failed = try client.vivoList(regIDs: [registrationID(), registrationID("error-")], authToken: token)
            #expect(try failed.json["result"] as? Int == 10055)
            let retried = [registrationID(), registrationID("unavailable-")]
            #expect(try client.vivoList(regIDs: retried, authToken: token).json["result"] as? Int == 10040)
            #expect(try client.vivoList(regIDs: retried, authToken: token).json["result"] as? Int == 10040)
            #expect(try client.vivoList(regIDs: retried, authToken: token).json["result"] as? Int == 0)

            // Two HTTP requests per list push: saveListPayload and pushToList.
            let vivo = try #require(try simulator.statistics()["vivo"] as? [String: Any])
            #expect(vivo["httpRequests"] as? Int == 12)
            #expect(vivo["requests"] as? Int == 6)
            #expect((vivo["rejected"] as? [String: Int])?["invalidUsers"] == 1)
        }
    }

    @Test("title 40 and content 100 characters, 2 to 1000 regIds, a taskId saveListPayload issued, a requestId")
    func limits() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let token = try client.vivoToken()
            let forty = String(repeating: "标", count: 40)
            #expect(
                try client.vivoSend(regID: registrationID(), authToken: token, title: forty).json["result"] as? Int == 0
            )
            let long = try client.vivoSend(regID: registrationID(), authToken: token, title: forty + "x")
            #expect(try long.json["result"] as? Int == 10050)
            var noRequestID = VendorClient.vivoMessage()
            noRequestID["regId"] = registrationID()
            noRequestID["requestId"] = nil
            #expect(try client.vivo("/message/send", noRequestID, authToken: token).json["result"] as? Int == 10050)

            #expect(try client.vivoList(regIDs: [registrationID()], authToken: token).json["result"] as? Int == 10050)
            let tooMany = (0...1000).map { "r\($0)" }
            #expect(try client.vivoList(regIDs: tooMany, authToken: token).json["result"] as? Int == 10050)
            let unknownTask = try client.vivo(
                "/message/pushToList",
                ["appId": 10001, "regIds": ["a", "b"], "taskId": "999", "requestId": "r1"], authToken: token)
            #expect(try unknownTask.json["result"] as? Int == 10050)
        }
    }
}
