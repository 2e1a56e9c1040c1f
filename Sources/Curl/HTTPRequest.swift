/// One HTTP request for `CurlClient.send(_:)`.
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// An absolute `https://` URL (plain `http://` works too, as HTTP/1.1).
    public var url: String
    public var headers: HTTPHeaders
    public var body: [UInt8]?
    /// The whole exchange, from submission (time waiting for a free stream included) to the last body byte;
    /// `nil` takes the client's default.
    public var timeout: Duration?

    public init(
        method: HTTPMethod = .get,
        url: String,
        headers: HTTPHeaders = [:],
        body: [UInt8]? = nil,
        timeout: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}
