import Crypto
import Foundation
import _CryptoExtras

/// Builds the JWTs a PushLedger server would send, so the tests check the simulator against independent tokens.
enum TestJWT {
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func encode(_ object: [String: Any]) throws -> String {
        try self.base64URL(JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// An APNs provider token: ES256 with `kid` in the header and `iss`/`iat` claims.
    static func apns(
        key: P256.Signing.PrivateKey, keyID: String, teamID: String, issuedAt: Date = Date()
    ) throws
        -> String
    {
        let input =
            try self.encode(["alg": "ES256", "kid": keyID]) + "."
            + self.encode(["iss": teamID, "iat": Int(issuedAt.timeIntervalSince1970)])
        let signature = try key.signature(for: Data(input.utf8))
        return input + "." + self.base64URL(signature.rawRepresentation)
    }

    /// A Google service-account assertion: RS256 (PKCS#1 v1.5) for the jwt-bearer grant.
    static func serviceAccount(
        key: _RSA.Signing.PrivateKey,
        email: String,
        audience: String,
        scope: String = "https://www.googleapis.com/auth/firebase.messaging",
        issuedAt: Date = Date(),
        lifetime: TimeInterval = 3600
    ) throws -> String {
        let now = Int(issuedAt.timeIntervalSince1970)
        let input =
            try self.encode(["alg": "RS256", "typ": "JWT"]) + "."
            + self.encode(["iss": email, "scope": scope, "aud": audience, "iat": now, "exp": now + Int(lifetime)])
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + self.base64URL(signature.rawRepresentation)
    }
}
