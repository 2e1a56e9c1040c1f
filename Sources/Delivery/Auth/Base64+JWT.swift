import ExtrasBase64

extension Base64.EncodingOptions {
    /// JWS segments: the base64url alphabet without padding (RFC 7515 §2).
    static let jwt: Base64.EncodingOptions = [.base64UrlAlphabet, .omitPaddingCharacter]
}
