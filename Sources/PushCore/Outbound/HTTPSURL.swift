/// An absolute `https` URL a client supplied (a WNS channel URI), read strictly enough that every HTTP library
/// agrees on where it leads: `https://host[:port]/path[?query]`, where the host is a lower-case DNS name
/// (letters, digits, hyphens, dots; no empty label, no trailing dot) or a dotted IPv4 address, without
/// userinfo, percent-encoding, backslashes, a fragment, whitespace or control characters. Anything looser is
/// refused rather than interpreted (SPEC §12.7): the places URL parsers disagree are where requests get
/// steered.
public struct HTTPSURL: Sendable, Hashable {
    /// Lower-cased.
    public let host: String
    /// 443 when the URL names none.
    public let port: Int
    /// The whole URL as given (the path's case matters to the provider).
    public let text: String

    public static let maxLength = 2048

    public init?(_ text: String) {
        guard text.utf8.count <= Self.maxLength, text.utf8.allSatisfy(Self.isURLCharacter) else { return nil }
        let scheme = "https://"
        guard text.utf8.count > scheme.utf8.count, text.prefix(scheme.count).lowercased() == scheme else {
            return nil
        }
        let rest = text.dropFirst(scheme.count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.isEmpty, !authority.contains("@"), !text.contains("#") else { return nil }
        guard let hostPort = HostPort(entry: String(authority)) else { return nil }
        self.host = hostPort.host
        self.port = hostPort.port
        self.text = text
    }

    /// RFC 3986's unreserved and reserved characters and `%` (WNS channel URIs carry `%2b` in their query;
    /// the host admits none of it), so never a backslash, a space, a control character or non-ASCII.
    static func isURLCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return urlPunctuation.contains(byte)
        }
    }

    private static let urlPunctuation = Set("-._~:/?#[]@!$&'()*+,;=%".utf8)
}
