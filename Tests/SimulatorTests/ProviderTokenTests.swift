import Crypto
import Foundation
import Simulator
import Testing

@Suite("APNs provider tokens (ES256 JWT)")
struct ProviderTokenTests {
    static let keyID = "ABC123DEFG"
    static let teamID = "TEAM123456"

    /// Configures the simulator from a `.p8` file, as an operator would, and returns the private key for signing.
    private static func withTokenAuth(
        _ body: (SimulatorHarness, P256.Signing.PrivateKey) async throws -> Void
    ) async throws {
        let key = P256.Signing.PrivateKey()
        let p8 = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey_\(UUID().uuidString).p8").path
        try key.pemRepresentation.write(toFile: p8, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: p8) }
        try await SimulatorHarness.with({ configuration in
            configuration.apnsKeys = [try APNsVerificationKey(keyID: keyID, teamID: teamID, pemFile: p8)]
        }) { simulator in
            try await body(simulator, key)
        }
    }

    @Test("a token signed with the configured key is accepted")
    func acceptsValidToken() async throws {
        try await Self.withTokenAuth { simulator, key in
            let jwt = try TestJWT.apns(key: key, keyID: Self.keyID, teamID: Self.teamID)
            let response = try simulator.push(token: deviceToken(), headers: ["authorization": "bearer \(jwt)"])
            #expect(response.status == 200)
            // The cached verification must not let the same token through without its header later.
            let again = try simulator.push(token: deviceToken(), headers: ["authorization": "bearer \(jwt)"])
            #expect(again.status == 200)
        }
    }

    @Test("a token signed with another key is InvalidProviderToken")
    func rejectsWrongKey() async throws {
        try await Self.withTokenAuth { simulator, _ in
            let jwt = try TestJWT.apns(key: P256.Signing.PrivateKey(), keyID: Self.keyID, teamID: Self.teamID)
            let response = try simulator.push(token: deviceToken(), headers: ["authorization": "bearer \(jwt)"])
            #expect(response.status == 403)
            #expect(try response.json["reason"] as? String == "InvalidProviderToken")
        }
    }

    @Test("an unknown kid or a foreign team is InvalidProviderToken")
    func rejectsUnknownKeyOrTeam() async throws {
        try await Self.withTokenAuth { simulator, key in
            let unknownKid = try TestJWT.apns(key: key, keyID: "OTHERKEY00", teamID: Self.teamID)
            let wrongTeam = try TestJWT.apns(key: key, keyID: Self.keyID, teamID: "OTHERTEAM0")
            for jwt in [unknownKid, wrongTeam, "not.a.jwt"] {
                let response = try simulator.push(token: deviceToken(), headers: ["authorization": "bearer \(jwt)"])
                #expect(response.status == 403)
                #expect(try response.json["reason"] as? String == "InvalidProviderToken")
            }
        }
    }

    @Test("no authorization header is MissingProviderToken")
    func rejectsMissingToken() async throws {
        try await Self.withTokenAuth { simulator, _ in
            let response = try simulator.push(token: deviceToken())
            #expect(response.status == 403)
            #expect(try response.json["reason"] as? String == "MissingProviderToken")
        }
    }

    @Test("a token issued more than an hour ago is ExpiredProviderToken")
    func rejectsExpiredToken() async throws {
        try await Self.withTokenAuth { simulator, key in
            let old = try TestJWT.apns(
                key: key, keyID: Self.keyID, teamID: Self.teamID, issuedAt: Date().addingTimeInterval(-3700)
            )
            let response = try simulator.push(token: deviceToken(), headers: ["authorization": "bearer \(old)"])
            #expect(response.status == 403)
            #expect(try response.json["reason"] as? String == "ExpiredProviderToken")
            let stats = try simulator.statistics()
            let rejected = try #require((stats["apns"] as? [String: Any])?["rejected"] as? [String: Int])
            #expect(rejected["ExpiredProviderToken"] == 1)
        }
    }

    @Test("without configured keys (certificate mode) no token is needed")
    func certificateModeNeedsNoToken() async throws {
        try await SimulatorHarness.with { simulator in
            let response = try simulator.push(token: deviceToken())
            #expect(response.status == 200)
        }
    }
}
