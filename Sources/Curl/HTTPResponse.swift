/// A complete HTTP response. Any status counts as a response; only transport failures throw.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Names lower-cased.
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var version: HTTPVersion

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = [], version: HTTPVersion = .http2) {
        self.status = status
        self.headers = headers
        self.body = body
        self.version = version
    }
}
