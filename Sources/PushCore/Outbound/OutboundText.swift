/// Client- and operator-supplied values that end up in a provider request's header lines or path
/// (SPEC §12.7). Each is checked for where it goes: an APNs topic is a bundle identifier, a team or key id
/// is letters and digits, a device token in a path is hex. A value outside its alphabet is refused where it
/// arrives, so no CR/LF can add a header and no `/`, `?`, `#` or `..` can change a request line.
public enum OutboundText {
    /// `apns-topic` and `apnsTopic`: a bundle identifier with its suffixes (`.voip`, `.complication`).
    public static let topicPunctuation: Set<Character> = [".", "-", "_"]

    /// Letters and digits plus `punctuation`, 1 to 255 ASCII characters.
    public static func isToken(_ value: String, allowing punctuation: Set<Character> = []) -> Bool {
        guard (1...255).contains(value.utf8.count) else { return false }
        return value.allSatisfy { c in
            c.isASCII && (c.isLetter || c.isNumber || punctuation.contains(c))
        }
    }

    public static func isTopic(_ value: String) -> Bool { isToken(value, allowing: topicPunctuation) }

    /// Team and key ids (Apple's are ten letters and digits; `-` and `_` are let through for other issuers).
    public static func isIdentifier(_ value: String) -> Bool { isToken(value, allowing: ["-", "_"]) }

    /// APNs device tokens go into the request's path (`/3/device/<token>`): hex and nothing else (whether its
    /// length is one Apple issues is APNs' to say).
    public static func isPathSafeDeviceToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= 512 && token.utf8.allSatisfy(HexText.isHexDigit)
    }
}
