import CCurl

/// A URL as libcurl itself reads it (its URL API, the parser behind `CURLOPT_URL`), so that a check of where a
/// request goes looks at the same host and port the transfer will connect to, not at another parser's idea.
public struct CurlURL: Sendable, Equatable {
    public let scheme: String
    /// As libcurl will resolve it (lower case is not enforced by libcurl; callers compare case-insensitively).
    public let host: String
    /// The URL's port, or the scheme's default.
    public let port: Int

    /// nil when libcurl does not take it for a URL at all.
    public init?(_ text: String) {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        // No guessing of a missing scheme, and no "non-supported" schemes: exactly what a transfer would accept.
        guard curl_url_set(handle, CURLUPART_URL, text, 0) == CURLUE_OK else { return nil }
        func part(_ which: CURLUPart, _ flags: UInt32 = 0) -> String? {
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
            defer { curl_free(value) }
            return String(cString: value)
        }
        guard let scheme = part(CURLUPART_SCHEME), let host = part(CURLUPART_HOST),
            let port = part(CURLUPART_PORT, UInt32(CURLU_DEFAULT_PORT)).flatMap(Int.init)
        else { return nil }
        self.scheme = scheme.lowercased()
        self.host = host
        self.port = port
    }
}
