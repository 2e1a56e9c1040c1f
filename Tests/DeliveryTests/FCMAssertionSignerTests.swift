import Foundation
import PushCore
import Testing
import _CryptoExtras

@testable import Delivery

@Suite struct FCMAssertionSignerTests {
    @Test func serviceAccountFileIsRead() throws {
        let account = try FCMServiceAccount(file: TestKeys.serviceAccountFile(tokenURI: "https://auth.test/token"))
        #expect(account.clientEmail == "pushledger@demo-project.iam.gserviceaccount.com")
        #expect(account.tokenURI == "https://auth.test/token")
        #expect(account.projectId == "demo-project")
        #expect(account.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
    }

    @Test func assertionIsAnRS256JWTWithGooglesClaims() throws {
        let account = try FCMServiceAccount(json: TestKeys.serviceAccountJSON(tokenURI: "https://auth.test/token"))
        let signer = try FCMAssertionSigner(account: account)
        let assertion = signer.assertion(
            audience: "https://auth.test/token", issuedAt: Date(timeIntervalSince1970: 1000)
        )
        let parts = try JWTParts(assertion)
        #expect(parts.header == ["alg": "RS256", "typ": "JWT"])
        #expect(
            parts.claims == [
                "iss": "pushledger@demo-project.iam.gserviceaccount.com",
                "scope": "https://www.googleapis.com/auth/firebase.messaging",
                "aud": "https://auth.test/token", "iat": 1000, "exp": 4600,
            ]
        )
        let signature = _RSA.Signing.RSASignature(rawRepresentation: parts.signature)
        let publicKey = TestKeys.rsaKey.publicKey
        #expect(publicKey.isValidSignature(signature, for: parts.signingInput, padding: .insecurePKCS1v1_5))
        var tampered = parts.signingInput
        tampered[tampered.count - 1] ^= 1
        #expect(!publicKey.isValidSignature(signature, for: tampered, padding: .insecurePKCS1v1_5))
    }

    @Test func incompleteServiceAccountsAreRejected() {
        #expect(throws: CredentialError.invalidServiceAccount("client_email is missing")) {
            try FCMServiceAccount(json: #"{"private_key":"x"}"#)
        }
        #expect(throws: CredentialError.invalidServiceAccount("private_key is missing")) {
            try FCMServiceAccount(json: #"{"client_email":"a@b"}"#)
        }
        #expect(throws: CredentialError.self) {
            try FCMAssertionSigner(account: FCMServiceAccount(clientEmail: "a", privateKeyPEM: "nope", tokenURI: "x"))
        }
    }
}
