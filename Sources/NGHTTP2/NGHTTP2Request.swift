import HTTPTypes

/// One HTTP/2 request for `NGHTTP2Client.send(_:)`, shaped like `CurlRequest`.
///
/// Header order on the wire: the pseudo-headers (from `method` and `url`), then `headers`, then
/// `sharedHeaders`, then `user-agent` (the client's, unless either gave one) and `content-length` (when there
/// is a body, unless given). Names go out in lower case. Lines HTTP/2 forbids (`connection`, `keep-alive`,
/// `proxy-connection`, `transfer-encoding`, `upgrade`) and `host` (the URL's authority is `:authority`) and
/// `expect` are dropped. `headers` are sent as never-indexed HPACK literals, being the lines that differ per
/// request; `sharedHeaders` are indexed.
public struct NGHTTP2Request: Sendable {
    public var method: HTTPRequest.Method
    /// An absolute `https://` URL; `:authority` is its host and port as written, `:path` its path and query.
    public var url: String
    public var headers: HTTPFields
    /// Lines sent after `headers`, shared with other requests (see `NGHTTP2HeaderBlock`).
    public var sharedHeaders: NGHTTP2HeaderBlock?
    public var body: [UInt8]?
    /// The whole exchange, from submission (time waiting for a free stream included) to the last body byte;
    /// `nil` takes the client's default.
    public var timeout: Duration?

    public init(
        method: HTTPRequest.Method = .get,
        url: String,
        headers: HTTPFields = [:],
        body: [UInt8]? = nil,
        timeout: Duration? = nil,
        sharedHeaders: NGHTTP2HeaderBlock? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.sharedHeaders = sharedHeaders
    }
}
