/// One entry of an operator's host list (`wns.allowed_hosts`): a host and a port, 443 when none is written.
public struct HostPort: Sendable, Hashable, CustomStringConvertible {
    public let host: String
    public let port: Int

    public init(host: String, port: Int = 443) {
        self.host = host
        self.port = port
    }

    /// `host[:port]`; nil when it is not one (a scheme, a path, userinfo, an empty or out-of-range port).
    public init?(entry: String) {
        var host = Substring(entry.lowercased())
        var port = 443
        // The last colon starts the port unless it is inside an IPv6 literal's brackets.
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") {
            let digits = host[host.index(after: colon)...]
            guard (1...5).contains(digits.count), digits.allSatisfy(\.isASCII), let n = Int(digits),
                (1...65535).contains(n)
            else { return nil }
            port = n
            host = host[..<colon]
        }
        guard Self.isHostName(String(host)) else { return nil }
        self.host = String(host)
        self.port = port
    }

    public var description: String { port == 443 ? host : "\(host):\(port)" }

    /// A lower-case DNS name of labels of letters, digits and inner hyphens, a dotted IPv4 address, or a
    /// bracketed IPv6 one: nothing a URL parser could read another way (no trailing dot, no empty label, no
    /// escapes, no zone ids).
    static func isHostName(_ host: String) -> Bool {
        if host.hasPrefix("[") {
            // An IPv6 literal, in brackets as in a URL (and as libcurl gives the host back).
            let inner = host.dropFirst().dropLast()
            return host.hasSuffix("]") && inner.contains(":")
                && inner.utf8.allSatisfy {
                    $0 == UInt8(ascii: ":") || ($0 < 128 && Character(Unicode.Scalar($0)).isHexDigit)
                }
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard !host.isEmpty, host.utf8.count <= 253, labels.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 63 }) else {
            return false
        }
        return labels.allSatisfy { label in
            label.utf8.allSatisfy {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || $0 == UInt8(ascii: "-")
            } && label.first != "-" && label.last != "-"
        }
    }
}
