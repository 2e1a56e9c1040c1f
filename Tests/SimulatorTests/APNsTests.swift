import Foundation
import Simulator
import Testing

@Suite("APNs look-alike")
struct APNsTests {
    @Test("a valid push is accepted with a generated apns-id")
    func acceptsValidPush() async throws {
        try await SimulatorHarness.with { simulator in
            let response = try simulator.push(token: deviceToken())
            #expect(response.httpVersion == "HTTP/2")
            #expect(response.status == 200)
            let apnsID = try #require(response.headers["apns-id"])
            #expect(UUID(uuidString: apnsID) != nil)
            #expect(response.body.isEmpty)
        }
    }

    @Test("the request's apns-id is echoed")
    func echoesApnsID() async throws {
        try await SimulatorHarness.with { simulator in
            let id = "123E4567-E89B-12D3-A456-4266554400A0"
            let response = try simulator.push(token: deviceToken(), headers: ["apns-id": id])
            #expect(response.status == 200)
            #expect(response.headers["apns-id"] == id)
        }
    }

    @Test(
        "invalid requests get Apple's status and reason",
        arguments: [
            (["apns-topic": ""], "aa", 400, "MissingTopic"),
            (["apns-push-type": "banner"], "aa", 400, "InvalidPushType"),
            (["apns-priority": "7"], "aa", 400, "BadPriority"),
            (["apns-expiration": "tomorrow"], "aa", 400, "BadExpirationDate"),
            (["apns-id": "not-a-uuid"], "aa", 400, "BadMessageId"),
            ([:], "not-hex-token", 400, "BadDeviceToken"),
        ] as [([String: String], String, Int, String)]
    )
    func rejectsInvalidRequests(headers: [String: String], token: String, status: Int, reason: String) async throws {
        try await SimulatorHarness.with { simulator in
            let response = try simulator.push(token: token == "aa" ? deviceToken() : token, headers: headers)
            #expect(response.status == status)
            #expect(try response.json["reason"] as? String == reason)
            #expect(response.headers["apns-id"] != nil)
        }
    }

    @Test("payloads must be JSON with an aps object and at most 4096 bytes")
    func checksPayload() async throws {
        try await SimulatorHarness.with { simulator in
            let large = #"{"aps":{"alert":""# + String(repeating: "x", count: 4100) + #""}}"#
            let tooLarge = try simulator.push(token: deviceToken(), payload: large)
            #expect(tooLarge.status == 413)
            #expect(try tooLarge.json["reason"] as? String == "PayloadTooLarge")

            let noAps = try simulator.push(token: deviceToken(), payload: #"{"alert":"hi"}"#)
            #expect(noAps.status == 400)
            #expect(try noAps.json["reason"] as? String == "BadPayload")

            let notJSON = try simulator.push(token: deviceToken(), payload: #"{"aps":{"#)
            #expect(notJSON.status == 400)

            let atLimit = #"{"aps":{"alert":""# + String(repeating: "x", count: 4096 - 20) + #""}}"#
            #expect(atLimit.utf8.count == 4096)
            #expect(try simulator.push(token: deviceToken(), payload: atLimit).status == 200)
        }
    }

    @Test("GET on the push path is refused")
    func rejectsWrongMethod() async throws {
        try await SimulatorHarness.with { simulator in
            let response = try simulator.request("GET", "/3/device/\(deviceToken())")
            #expect(response.status == 405)
            #expect(try response.json["reason"] as? String == "MethodNotAllowed")
        }
    }
}
