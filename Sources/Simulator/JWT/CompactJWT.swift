import ExtrasBase64
import Foundation
import PushCore

/// A JWS in compact serialisation, split and decoded but not yet verified.
///
/// Both look-alikes need the same first steps — APNs provider tokens (ES256) and Google service-account assertions
/// (RS256) — and only differ in the key type and claims they check afterwards.
struct CompactJWT {
    /// Why a token could not even be read.
    struct Malformed: Error {}

    var header: JSON
    var claims: JSON
    /// `base64url(header) "." base64url(claims)`: the bytes the signature covers.
    var signingInput: Data
    var signature: Data

    var algorithm: String? { self.header["alg"]?.stringValue }
    var keyID: String? { self.header["kid"]?.stringValue }

    init(_ token: some StringProtocol) throws(Malformed) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = Self.decode(parts[0]), let claimsData = Self.decode(parts[1]),
            let signature = Self.decode(parts[2])
        else { throw Malformed() }
        guard let header = try? headerData.withUnsafeBytes({ try JSON.parse($0) }), header.isObject,
            let claims = try? claimsData.withUnsafeBytes({ try JSON.parse($0) }), claims.isObject
        else { throw Malformed() }
        self.header = header
        self.claims = claims
        self.signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        self.signature = signature
    }

    /// One segment: unpadded base64url (RFC 7515 §2); padding or another alphabet is malformed.
    static func decode(_ segment: some StringProtocol) -> Data? {
        guard !segment.contains("=") else { return nil }
        return (try? Base64.decode(string: String(segment), options: [.base64UrlAlphabet, .omitPaddingCharacter]))
            .map { Data($0) }
    }
}
