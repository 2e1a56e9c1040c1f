import Foundation
import PushCore
import _CryptoExtras

/// A Google service account whose signed assertions (RS256 JWTs) the OAuth look-alike exchanges for access tokens.
///
/// Operators hold the service-account JSON file Google hands out (with the private key in it), so that file is
/// accepted as is and the public key is derived from it.
public struct ServiceAccountVerificationKey: Sendable {
    /// Why a service-account JSON file was refused.
    public struct InvalidServiceAccount: Error, CustomStringConvertible {
        public var description: String
    }

    /// Matched against the assertion's `iss` claim.
    public var clientEmail: String
    public var publicKey: _RSA.Signing.PublicKey

    public init(clientEmail: String, publicKey: _RSA.Signing.PublicKey) {
        self.clientEmail = clientEmail
        self.publicKey = publicKey
    }

    /// Accepts a private key (PKCS#1 or PKCS#8) or a public key, in PEM.
    public init(clientEmail: String, pem: String) throws {
        let publicKey: _RSA.Signing.PublicKey
        if pem.contains("PRIVATE KEY") {
            publicKey = try _RSA.Signing.PrivateKey(pemRepresentation: pem).publicKey
        } else {
            publicKey = try _RSA.Signing.PublicKey(pemRepresentation: pem)
        }
        self.init(clientEmail: clientEmail, publicKey: publicKey)
    }

    /// The contents of a service-account JSON file: `client_email` and `private_key` are used.
    public init(serviceAccountJSON data: Data) throws {
        let document = try data.withUnsafeBytes { try JSON.parse($0) }
        guard let email = document["client_email"]?.stringValue, let pem = document["private_key"]?.stringValue else {
            throw InvalidServiceAccount(description: "service-account JSON needs client_email and private_key")
        }
        try self.init(clientEmail: email, pem: pem)
    }

    public init(serviceAccountFile path: String) throws {
        try self.init(serviceAccountJSON: try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
