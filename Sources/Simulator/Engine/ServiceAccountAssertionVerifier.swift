import Foundation
import _CryptoExtras

/// Checks the RS256 assertion of a Google OAuth `jwt-bearer` grant, answering with Google's error vocabulary.
struct ServiceAccountAssertionVerifier: Sendable {
    /// A refusal as Google words it: `{"error": code, "error_description": description}`, HTTP 400.
    struct Refusal: Error, Hashable {
        var code: String
        var description: String
    }

    /// Scopes that grant FCM sends.
    static let acceptedScopes: Set<String> = [
        "https://www.googleapis.com/auth/firebase.messaging",
        "https://www.googleapis.com/auth/cloud-platform",
    ]

    private let accounts: [String: ServiceAccountVerificationKey]

    init(accounts: [ServiceAccountVerificationKey]) {
        self.accounts = Dictionary(accounts.map { ($0.clientEmail, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Verifies `assertion` and returns the service account's email (the `iss` claim).
    func verify(assertion: String, now: Int) throws(Refusal) -> String {
        guard let jwt = try? CompactJWT(assertion) else {
            throw Refusal(code: "invalid_grant", description: "Invalid JWT: malformed assertion.")
        }
        guard jwt.algorithm == "RS256" else {
            throw Refusal(code: "invalid_grant", description: "Invalid JWT: unsupported signing algorithm.")
        }
        guard let issuer = jwt.claims["iss"]?.stringValue, !issuer.isEmpty else {
            throw Refusal(code: "invalid_grant", description: "Invalid JWT: missing iss claim.")
        }
        if !self.accounts.isEmpty {
            guard let account = self.accounts[issuer] else {
                throw Refusal(code: "invalid_grant", description: "Invalid grant: account not found")
            }
            let signature = _RSA.Signing.RSASignature(rawRepresentation: jwt.signature)
            guard account.publicKey.isValidSignature(signature, for: jwt.signingInput, padding: .insecurePKCS1v1_5)
            else { throw Refusal(code: "invalid_grant", description: "Invalid JWT Signature.") }
        }
        guard let audience = jwt.claims["aud"]?.stringValue, audience.hasSuffix("/token") else {
            throw Refusal(code: "invalid_grant", description: "Invalid JWT: Failed audience check.")
        }
        guard let issuedAt = jwt.claims["iat"]?.integerValue, let expiry = jwt.claims["exp"]?.integerValue,
            issuedAt <= now + 300, expiry > now, expiry > issuedAt, expiry - issuedAt <= 3600
        else {
            throw Refusal(
                code: "invalid_grant",
                description: "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable "
                    + "timeframe. Check your iat and exp values in the JWT claim."
            )
        }
        let scopes = (jwt.claims["scope"]?.stringValue ?? "").split(separator: " ").map(String.init)
        guard scopes.contains(where: Self.acceptedScopes.contains) else {
            throw Refusal(code: "invalid_scope", description: "Invalid OAuth scope or ID token audience provided.")
        }
        return issuer
    }
}
