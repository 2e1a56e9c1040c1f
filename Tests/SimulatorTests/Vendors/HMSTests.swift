import Foundation
import Testing

/// The Huawei Push Kit look-alike against docs/vendors.md: token exchange, send, per-device and retry answers, limits.
@Suite("HMS look-alike")
struct HMSTests {
    @Test("the client-credentials grant buys an hour's bearer token; a wrong secret is refused with 1101")
    func tokenExchange() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let granted = try client.hmsToken()
            #expect(granted.status == 200)
            let body = try granted.json
            #expect(body["expires_in"] as? Int == 3600)
            #expect(body["token_type"] as? String == "Bearer")
            #expect((body["access_token"] as? String)?.isEmpty == false)

            let refused = try client.hmsToken(secret: "wrong")
            #expect(refused.status == 400)
            #expect(try refused.json["error"] as? Int == 1101)
            let stats = try #require(try simulator.statistics()["hmsAuth"] as? [String: Any])
            #expect(stats["accepted"] as? Int == 1)
            #expect((stats["rejected"] as? [String: Int])?["1101"] == 1)
        }
    }

    @Test("a good send is answered 80000000 with a request id; without a valid token it is 401 80200003")
    func sendAndAuth() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let bearer = try client.accessToken(try client.hmsToken())
            let tokens = [registrationID(), registrationID()]
            let accepted = try client.hmsSend(tokens: tokens, bearer: bearer)
            #expect(accepted.status == 200)
            let body = try accepted.json
            #expect(body["code"] as? String == "80000000")
            #expect(body["msg"] as? String == "Success")
            #expect((body["requestId"] as? String)?.isEmpty == false)

            for wrong in [nil, "forged", try client.accessToken(try client.honorToken())] {
                let refused = try client.hmsSend(tokens: tokens, bearer: wrong)
                #expect(refused.status == 401)
                #expect(try refused.json["code"] as? String == "80200003")
            }
            let hms = try #require(try simulator.statistics()["hms"] as? [String: Any])
            #expect(hms["requests"] as? Int == 4)
            #expect(hms["devices"] as? Int == 8)
            #expect(hms["accepted"] as? Int == 2)
            #expect((hms["refused"] as? [String: Int])?["80200003"] == 3)
        }
    }

    @Test("invalid- and error- tokens among good ones are a partial success listing them in illegal_tokens")
    func partialSuccess() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let bearer = try client.accessToken(try client.hmsToken())
            let good = registrationID()
            let invalid = registrationID("invalid-")
            let failing = registrationID("error-")
            let quota = registrationID("quota-")
            let response = try client.hmsSend(tokens: [good, invalid, quota, failing], bearer: bearer)
            #expect(response.status == 200)
            let body = try response.json
            #expect(body["code"] as? String == "80100000")
            let msg = try #require(body["msg"] as? String)
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(msg.utf8)) as? [String: Any])
            #expect(summary["success"] as? Int == 2)
            #expect(summary["failure"] as? Int == 2)
            #expect(summary["illegal_tokens"] as? [String] == [invalid, failing])

            let allInvalid = try client.hmsSend(tokens: [registrationID("invalid-")], bearer: bearer)
            #expect(try allInvalid.json["code"] as? String == "80300007")
            let allError = try client.hmsSend(
                tokens: [registrationID("error-"), registrationID("error-")], bearer: bearer)
            #expect(try allError.json["code"] as? String == "80100001")

            let recorded = try simulator.request("GET", "/_sim/requests?token=\(good)").json
            #expect(recorded["requests"] as? Int == 1)
            #expect(recorded["accepted"] as? Int == 1)
            let invalidRecord = try simulator.request("GET", "/_sim/requests?token=\(invalid)").json
            #expect(invalidRecord["accepted"] as? Int == 0)
        }
    }

    @Test("an unavailable- token makes the whole request 503 twice, then it is delivered")
    func unavailableThenDelivered() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let bearer = try client.accessToken(try client.hmsToken())
            let tokens = [registrationID(), registrationID("unavailable-")]
            for _ in 0..<2 {
                #expect(try client.hmsSend(tokens: tokens, bearer: bearer).status == 503)
            }
            let third = try client.hmsSend(tokens: tokens, bearer: bearer)
            #expect(third.status == 200)
            #expect(try third.json["code"] as? String == "80000000")
        }
    }

    @Test("1 to 1000 tokens, 4096 bytes without them, and a click action for notifications")
    func limits() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let bearer = try client.accessToken(try client.hmsToken())
            let thousand = (0..<1000).map { "t\($0)-" + registrationID() }
            #expect(try client.hmsSend(tokens: thousand, bearer: bearer).json["code"] as? String == "80000000")
            let tooMany = try client.hmsSend(tokens: thousand + [registrationID()], bearer: bearer)
            #expect(try tooMany.json["code"] as? String == "80300010")
            #expect(try client.hmsSend(tokens: [], bearer: bearer).json["code"] as? String == "80300010")

            let large = String(repeating: "x", count: 4100)
            let tooLarge = try client.hmsSend(tokens: [registrationID()], bearer: bearer, data: large)
            #expect(try tooLarge.json["code"] as? String == "80300008")

            let noClick = try client.hmsSend(
                tokens: [registrationID()], bearer: bearer, notification: ["title": "Hello", "body": "hi"])
            #expect(try noClick.json["code"] as? String == "80100003")
            let other = try client.hmsSend(tokens: [registrationID()], bearer: bearer, appID: "someone-else")
            #expect(other.status == 401)
        }
    }
}
