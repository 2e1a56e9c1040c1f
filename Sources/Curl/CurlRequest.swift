import HTTPTypes

/// One HTTP request for `CurlClient.send(_:)`: method and fields as swift-http-types spells them (the types
/// Hummingbird speaks), plus what libcurl needs besides — the absolute URL, the body and a timeout.
public struct CurlRequest: Sendable {
    public var method: HTTPRequest.Method
    /// An absolute `https://` URL (plain `http://` works too, as HTTP/1.1).
    public var url: String
    public var headers: HTTPFields
    /// Lines sent after `headers`, shared with other requests (see `CurlHeaderBlock`).
    public var sharedHeaders: CurlHeaderBlock?
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
        sharedHeaders: CurlHeaderBlock? = nil
    ) {
        self.sharedHeaders = sharedHeaders
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}
