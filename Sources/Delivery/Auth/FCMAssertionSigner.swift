import Foundation
import PushCore
import _CryptoExtras

/// Signs the RS256 service-account assertion that Google's token endpoint exchanges for an access token.
public struct FCMAssertionSigner: Sendable {
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"
    /// Google caps an assertion's life at one hour.
    public static let lifetime: Int64 = 3600

    public let clientEmail: String
    private let key: _RSA.Signing.PrivateKey

    public init(account: FCMServiceAccount) throws(CredentialError) {
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: account.privateKeyPEM)
        } catch {
            throw .invalidKey("not a PEM RSA key of at least 2048 bits (\(error))")
        }
        clientEmail = account.clientEmail
    }

    /// `{iss, scope, aud, iat, exp = iat + 3600}` signed with PKCS#1 v1.5 over SHA-256.
    public func assertion(audience: String, issuedAt: Date) -> String {
        let iat = Int64(issuedAt.timeIntervalSince1970.rounded(.down))
        let header: JSON = ["alg": "RS256", "typ": "JWT"]
        let claims: JSON = [
            "iss": .string(clientEmail), "scope": .string(Self.scope), "aud": .string(audience),
            "iat": .int(iat), "exp": .int(iat + Self.lifetime),
        ]
        let signingInput =
            String(base64Encoding: Array(header.encoded().utf8), options: .jwt) + "."
            + String(base64Encoding: Array(claims.encoded().utf8), options: .jwt)
        // The key was validated at init; signing with it cannot fail short of a broken library.
        let signature = try! key.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + String(base64Encoding: signature.rawRepresentation, options: .jwt)
    }

    public var publicKey: _RSA.Signing.PublicKey { key.publicKey }
}
