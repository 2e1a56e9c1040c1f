import HTTPTypes

/// A complete HTTP response. Any status counts as a response; only transport failures throw.
public struct CurlResponse: Sendable {
    public var status: Int
    /// Field names are case-insensitive in `HTTPFields`; a line whose name is not a valid token is dropped.
    public var headers: HTTPFields
    public var body: [UInt8]
    public var version: HTTPVersion

    public init(status: Int, headers: HTTPFields = [:], body: [UInt8] = [], version: HTTPVersion = .http2) {
        self.status = status
        self.headers = headers
        self.body = body
        self.version = version
    }
}
