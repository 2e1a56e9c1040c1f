import Foundation
import Simulator
import Testing
import _CryptoExtras

@Suite("OAuth token exchange and FCM HTTP v1")
struct FCMTests {
    static let email = "pushledger@demo-project.iam.gserviceaccount.com"

    /// A simulator configured from a service-account JSON file, plus the private key to sign assertions with.
    private static func withServiceAccount(
        _ body: (SimulatorHarness, _RSA.Signing.PrivateKey) async throws -> Void
    ) async throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let account: [String: String] = [
            "type": "service_account", "project_id": "demo-project", "private_key_id": "k1",
            "private_key": key.pemRepresentation, "client_email": email,
        ]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sa-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: account).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await SimulatorHarness.with({ configuration in
            configuration.serviceAccounts = [try ServiceAccountVerificationKey(serviceAccountFile: file.path)]
        }) { simulator in
            try await body(simulator, key)
        }
    }

    private static func exchange(_ simulator: SimulatorHarness, assertion: String) throws -> CurlResponse {
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        return try simulator.request(
            "POST", "/token", headers: ["content-type": "application/x-www-form-urlencoded"], body: form
        )
    }

    private static func accessToken(_ simulator: SimulatorHarness, key: _RSA.Signing.PrivateKey) throws -> String {
        let assertion = try TestJWT.serviceAccount(key: key, email: email, audience: simulator.info.fcmTokenEndpoint)
        let response = try self.exchange(simulator, assertion: assertion)
        #expect(response.status == 200)
        let body = try response.json
        #expect(body["expires_in"] as? Int == 3600)
        #expect(body["token_type"] as? String == "Bearer")
        return try #require(body["access_token"] as? String)
    }

    private static func send(
        _ simulator: SimulatorHarness, bearer: String?, token: String, project: String = "demo-project"
    ) throws -> CurlResponse {
        var headers = ["content-type": "application/json"]
        if let bearer { headers["authorization"] = "Bearer \(bearer)" }
        return try simulator.request(
            "POST", "/v1/projects/\(project)/messages:send", headers: headers,
            body: #"{"message":{"token":"\#(token)","data":{"k":"v"},"android":{"priority":"high"}}}"#
        )
    }

    @Test("an assertion signed by the service account buys an access token that FCM accepts")
    func exchangeThenSend() async throws {
        try await Self.withServiceAccount { simulator, key in
            let bearer = try Self.accessToken(simulator, key: key)
            let first = try Self.send(simulator, bearer: bearer, token: "device-token-1")
            #expect(first.status == 200)
            let name = try #require(try first.json["name"] as? String)
            #expect(name.hasPrefix("projects/demo-project/messages/"))
            let second = try Self.send(simulator, bearer: bearer, token: "device-token-2")
            #expect(try second.json["name"] as? String != name)
        }
    }

    @Test("an assertion signed by another key is refused as Google does")
    func rejectsForeignAssertion() async throws {
        try await Self.withServiceAccount { simulator, _ in
            let stranger = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let assertion = try TestJWT.serviceAccount(
                key: stranger, email: Self.email, audience: simulator.info.fcmTokenEndpoint
            )
            let response = try Self.exchange(simulator, assertion: assertion)
            #expect(response.status == 400)
            #expect(try response.json["error"] as? String == "invalid_grant")
            #expect(try response.json["error_description"] as? String == "Invalid JWT Signature.")
        }
    }

    @Test("assertions with a bad lifetime, scope or grant type are refused")
    func rejectsBadAssertions() async throws {
        try await Self.withServiceAccount { simulator, key in
            let audience = simulator.info.fcmTokenEndpoint
            let longLived = try TestJWT.serviceAccount(key: key, email: Self.email, audience: audience, lifetime: 7200)
            #expect(try Self.exchange(simulator, assertion: longLived).json["error"] as? String == "invalid_grant")
            let wrongScope = try TestJWT.serviceAccount(
                key: key, email: Self.email, audience: audience, scope: "https://www.googleapis.com/auth/drive"
            )
            #expect(try Self.exchange(simulator, assertion: wrongScope).json["error"] as? String == "invalid_scope")
            let grant = try simulator.request("POST", "/token", body: "grant_type=password&assertion=x")
            #expect(grant.status == 400)
            #expect(try grant.json["error"] as? String == "unsupported_grant_type")
        }
    }

    @Test("a missing or unknown bearer is 401 UNAUTHENTICATED in Google's format")
    func rejectsBadBearer() async throws {
        try await Self.withServiceAccount { simulator, _ in
            for bearer in [nil, "ya29.not-issued-here"] {
                let response = try Self.send(simulator, bearer: bearer, token: "device-token")
                #expect(response.status == 401)
                let error = try #require(try response.json["error"] as? [String: Any])
                #expect(error["code"] as? Int == 401)
                #expect(error["status"] as? String == "UNAUTHENTICATED")
            }
        }
    }

    @Test(
        "built-in FCM token rules answer in Google's error format",
        arguments: [
            ("unregistered-", 404, "NOT_FOUND", "UNREGISTERED"),
            ("invalid-", 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT"),
            ("mismatch-", 403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH"),
            ("internal-", 500, "INTERNAL", "INTERNAL"),
        ]
    )
    func fcmRules(prefix: String, status: Int, googleStatus: String, errorCode: String) async throws {
        try await SimulatorHarness.with { simulator in
            // No service accounts configured: any well-formed assertion is exchanged.
            let bearer = try Self.accessToken(simulator, key: try _RSA.Signing.PrivateKey(keySize: .bits2048))
            let response = try Self.send(simulator, bearer: bearer, token: prefix + "abc")
            #expect(response.status == status)
            let error = try #require(try response.json["error"] as? [String: Any])
            #expect(error["code"] as? Int == status)
            #expect(error["status"] as? String == googleStatus)
            #expect(error["message"] is String)
            let details = try #require(error["details"] as? [[String: Any]])
            #expect(details.first?["@type"] as? String == "type.googleapis.com/google.firebase.fcm.v1.FcmError")
            #expect(details.first?["errorCode"] as? String == errorCode)
        }
    }

    @Test("quota- and unavailable- tokens fail twice then succeed")
    func retryableFCMRules() async throws {
        try await SimulatorHarness.with { simulator in
            let bearer = try Self.accessToken(simulator, key: try _RSA.Signing.PrivateKey(keySize: .bits2048))
            for (prefix, status) in [("quota-", 429), ("unavailable-", 503)] {
                let token = prefix + UUID().uuidString
                #expect(try Self.send(simulator, bearer: bearer, token: token).status == status)
                #expect(try Self.send(simulator, bearer: bearer, token: token).status == status)
                #expect(try Self.send(simulator, bearer: bearer, token: token).status == 200)
            }
        }
    }

    @Test("a message without a target is INVALID_ARGUMENT")
    func rejectsMessageWithoutTarget() async throws {
        try await SimulatorHarness.with { simulator in
            let bearer = try Self.accessToken(simulator, key: try _RSA.Signing.PrivateKey(keySize: .bits2048))
            let response = try simulator.request(
                "POST", "/v1/projects/p/messages:send", headers: ["authorization": "Bearer \(bearer)"],
                body: #"{"message":{"data":{"k":"v"}}}"#
            )
            #expect(response.status == 400)
            let error = try #require(try response.json["error"] as? [String: Any])
            #expect(error["status"] as? String == "INVALID_ARGUMENT")
        }
    }
}
