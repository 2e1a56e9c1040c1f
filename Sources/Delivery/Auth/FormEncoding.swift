/// `application/x-www-form-urlencoded` bodies, as OAuth token endpoints read them (RFC 6749 appendix B).
enum FormEncoding {
    static func encode(_ pairs: [(name: String, value: String)]) -> String {
        pairs.map { escape($0.name) + "=" + escape($0.value) }.joined(separator: "&")
    }

    /// Every byte but the unreserved `A-Z a-z 0-9 - . _ ~` percent-encoded (so `+`, `/` and `=` in secrets
    /// survive), UTF-8 first.
    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
