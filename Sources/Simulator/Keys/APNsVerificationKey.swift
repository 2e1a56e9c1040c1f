import Crypto
import Foundation

/// A public key the APNs look-alike accepts provider tokens (ES256 JWTs) from, looked up by the token's `kid`.
///
/// The simulator only needs the public half, but operators hold the `.p8` private key Apple hands out, so the
/// initialisers also take that file and derive the public key from it.
public struct APNsVerificationKey: Sendable {
    /// The 10-character key identifier Apple assigns; matched against the JWT header's `kid`.
    public var keyID: String
    /// When set, the JWT's `iss` claim must equal it (Apple's team id); `nil` accepts any issuer.
    public var teamID: String?
    /// Kept as its X9.63 bytes because swift-crypto's key type is not `Sendable`.
    private var publicKeyBytes: Data

    public var publicKey: P256.Signing.PublicKey {
        get {
            // The bytes came from a valid key, so decoding them again cannot fail.
            try! P256.Signing.PublicKey(x963Representation: self.publicKeyBytes)
        }
        set { self.publicKeyBytes = newValue.x963Representation }
    }

    public init(keyID: String, teamID: String? = nil, publicKey: P256.Signing.PublicKey) {
        self.keyID = keyID
        self.teamID = teamID
        self.publicKeyBytes = publicKey.x963Representation
    }

    /// Accepts a PKCS#8 private key (Apple's `.p8`), a SEC1 private key or an SPKI public key, all in PEM.
    public init(keyID: String, teamID: String? = nil, pem: String) throws {
        let publicKey: P256.Signing.PublicKey
        if pem.contains("PRIVATE KEY") {
            publicKey = try P256.Signing.PrivateKey(pemRepresentation: pem).publicKey
        } else {
            publicKey = try P256.Signing.PublicKey(pemRepresentation: pem)
        }
        self.init(keyID: keyID, teamID: teamID, publicKey: publicKey)
    }

    /// Reads a PEM file such as Apple's `AuthKey_<kid>.p8`.
    public init(keyID: String, teamID: String? = nil, pemFile path: String) throws {
        let pem = try String(contentsOfFile: path, encoding: .utf8)
        try self.init(keyID: keyID, teamID: teamID, pem: pem)
    }
}
