import Crypto
import ExtrasBase64
import Foundation
import PushCore

/// Signs APNs provider tokens: ES256 JWTs with header `{alg, kid}` and claims `{iss: teamId, iat}`, made from a
/// `.p8` key (PEM PKCS#8 EC P-256).
///
/// `@unchecked` because swift-crypto 3 does not mark the key `Sendable` on Linux; it is an immutable value whose
/// BoringSSL key is never mutated after parsing.
public struct APNsJWTSigner: @unchecked Sendable {
    public let keyId: String
    public let teamId: String
    private let key: P256.Signing.PrivateKey

    public init(privateKeyPEM: String, keyId: String, teamId: String) throws(CredentialError) {
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw .invalidKey("not a PEM EC P-256 key (\(error))")
        }
        self.keyId = keyId
        self.teamId = teamId
    }

    public init(keyFile: String, keyId: String, teamId: String) throws(CredentialError) {
        try self.init(privateKeyPEM: try CredentialFile.read(keyFile), keyId: keyId, teamId: teamId)
    }

    /// A token issued at `issuedAt` (whole seconds since 1970, as Apple expects).
    public func token(issuedAt: Date) -> String {
        let header: JSON = ["alg": "ES256", "kid": .string(keyId)]
        let claims: JSON = ["iss": .string(teamId), "iat": .int(Int64(issuedAt.timeIntervalSince1970.rounded(.down)))]
        let signingInput =
            String(base64Encoding: Array(header.encoded().utf8), options: .jwt) + "."
            + String(base64Encoding: Array(claims.encoded().utf8), options: .jwt)
        // JWS wants the raw 64-byte r||s, not DER; signing a P-256 key only fails on a broken library.
        let signature = try! key.signature(for: Data(signingInput.utf8))
        return signingInput + "." + String(base64Encoding: signature.rawRepresentation, options: .jwt)
    }

    /// The public half, for verification in tests and diagnostics.
    public var publicKey: P256.Signing.PublicKey { key.publicKey }
}
