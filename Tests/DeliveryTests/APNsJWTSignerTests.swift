import Crypto
import Foundation
import Testing

@testable import Delivery

@Suite struct APNsJWTSignerTests {
    @Test func tokenIsAnES256JWTThatTheKeysPublicHalfVerifies() throws {
        let signer = try APNsJWTSigner(keyFile: TestKeys.apnsKeyFile, keyId: "TESTKEY123", teamId: "TEAM123456")
        let token = signer.token(issuedAt: Date(timeIntervalSince1970: 1_700_000_123.9))
        let parts = try JWTParts(token)
        #expect(parts.header == ["alg": "ES256", "kid": "TESTKEY123"])
        #expect(parts.claims == ["iss": "TEAM123456", "iat": 1_700_000_123])
        // JWS ES256 is the raw 64-byte r||s, not DER.
        #expect(parts.signature.count == 64)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: parts.signature)
        #expect(TestKeys.apnsKey.publicKey.isValidSignature(signature, for: parts.signingInput))
        #expect(!P256.Signing.PrivateKey().publicKey.isValidSignature(signature, for: parts.signingInput))
    }

    @Test func garbageKeyIsRejected() {
        #expect(throws: CredentialError.self) {
            try APNsJWTSigner(
                privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
                keyId: "K", teamId: "T")
        }
        #expect {
            try APNsJWTSigner(keyFile: "/nonexistent.p8", keyId: "K", teamId: "T")
        } throws: { error in
            if case .unreadableFile(let path, _)? = error as? CredentialError { return path == "/nonexistent.p8" }
            return false
        }
    }
}
