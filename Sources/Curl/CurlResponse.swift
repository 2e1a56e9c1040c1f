import HTTPTypes

/// A complete HTTP response. Any status counts as a response; only transport failures throw.
public struct CurlResponse: Sendable {
    public var status: Int
    public var body: [UInt8]
    public var version: HTTPVersion
    private var storedHeaders: Headers

    /// The header lines as the driver received them, or fields already parsed (or set).
    private enum Headers: Sendable {
        case lines([UInt8])
        case fields(HTTPFields)
    }

    /// Field names are case-insensitive in `HTTPFields`; a line whose name is not a valid token is dropped.
    /// Parsed from the received lines on each read: most responses (a delivered push) are never asked.
    public var headers: HTTPFields {
        get {
            switch storedHeaders {
            case .fields(let fields): fields
            case .lines(let lines): CurlHeaderLines.fields(lines)
            }
        }
        set { storedHeaders = .fields(newValue) }
    }

    public init(status: Int, headers: HTTPFields = [:], body: [UInt8] = [], version: HTTPVersion = .http2) {
        self.status = status
        self.storedHeaders = .fields(headers)
        self.body = body
        self.version = version
    }

    /// - Parameter headerLines: "name: value" lines, each ending in a line feed.
    init(status: Int, headerLines: [UInt8], body: [UInt8], version: HTTPVersion) {
        self.status = status
        self.storedHeaders = .lines(headerLines)
        self.body = body
        self.version = version
    }
}
