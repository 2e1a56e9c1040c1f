import Foundation
import Testing

/// The Honor Push look-alike against docs/vendors.md.
@Suite("Honor look-alike")
struct HonorTests {
    @Test("the client-credentials grant buys a token good at Honor only; a wrong secret is invalid_client")
    func tokenExchange() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let granted = try client.honorToken()
            #expect(granted.status == 200)
            #expect(try granted.json["expires_in"] as? Int == 3600)
            #expect(try granted.json["token_type"] as? String == "Bearer")
            let refused = try client.honorToken(secret: "wrong")
            #expect(refused.status == 400)
            #expect(try refused.json["error"] as? String == "invalid_client")

            let hmsBearer = try client.accessToken(try client.hmsToken())
            let foreign = try client.honorSend(tokens: [registrationID()], bearer: hmsBearer)
            #expect(foreign.status == 401)
            #expect(try foreign.json["code"] as? Int == 80_200_003)
        }
    }

    @Test("a good send is code 200 with sendResult; invalid- tokens are in expireTokens, the others delivered")
    func sendAndExpiredTokens() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let bearer = try client.accessToken(try client.honorToken())
            let good = registrationID()
            let invalid = registrationID("invalid-")
            let response = try client.honorSend(tokens: [good, invalid, registrationID("quota-")], bearer: bearer)
            #expect(response.status == 200)
            let body = try response.json
            #expect(body["code"] as? Int == 200)
            let data = try #require(body["data"] as? [String: Any])
            #expect(data["sendResult"] as? Bool == true)
            #expect((data["requestId"] as? String)?.isEmpty == false)
            #expect(data["expireTokens"] as? [String] == [invalid])
            #expect(data["failTokens"] as? [String] == [])

            let honor = try #require(try simulator.statistics()["honor"] as? [String: Any])
            #expect(honor["accepted"] as? Int == 2)
            #expect((honor["rejected"] as? [String: Int])?["expireTokens"] == 1)
        }
    }

    @Test("an error- token fails the whole request with HTTP 200 code 80100001; unavailable- is 503 twice")
    func errorsAndRetries() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let bearer = try client.accessToken(try client.honorToken())
            let failed = try client.honorSend(tokens: [registrationID(), registrationID("error-")], bearer: bearer)
            #expect(failed.status == 200)
            #expect(try failed.json["code"] as? Int == 80_100_001)

            let tokens = [registrationID(), registrationID("unavailable-")]
            #expect(try client.honorSend(tokens: tokens, bearer: bearer).status == 503)
            #expect(try client.honorSend(tokens: tokens, bearer: bearer).status == 503)
            #expect(try client.honorSend(tokens: tokens, bearer: bearer).json["code"] as? Int == 200)
        }
    }

    @Test("the timestamp header, a click action and at most 1000 tokens are required")
    func checks() async throws {
        try await SimulatorHarness.with { simulator in
            let client = VendorClient(simulator: simulator)
            let bearer = try client.accessToken(try client.honorToken())
            let noTimestamp = try client.honorSend(tokens: [registrationID()], bearer: bearer, timestamp: false)
            #expect(try noTimestamp.json["code"] as? Int == 80_100_001)
            let noClick = try client.honorSend(tokens: [registrationID()], bearer: bearer, clickAction: false)
            #expect(try noClick.json["code"] as? Int == 80_100_003)
            let tooMany = try client.honorSend(tokens: (0...1000).map { "t\($0)" }, bearer: bearer)
            #expect(try tooMany.json["code"] as? Int == 80_300_010)
        }
    }
}
