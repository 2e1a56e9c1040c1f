import HTTPTypes

/// A complete HTTP/2 response. Any status counts as a response; only transport failures throw.
public struct NGHTTP2Response: Sendable {
    public var status: Int
    public var body: [UInt8]
    private var storedHeaders: Headers

    /// The header lines as the loop collected them, or fields already parsed (or set).
    private enum Headers: Sendable {
        case lines([UInt8])
        case fields(HTTPFields)
    }

    /// Response header fields (trailers included). Parsed from the received lines on each read: most
    /// responses (a delivered push) are never asked.
    public var headers: HTTPFields {
        get {
            switch storedHeaders {
            case .fields(let fields): fields
            case .lines(let lines): NGHTTP2HeaderLines.fields(lines)
            }
        }
        set { storedHeaders = .fields(newValue) }
    }

    public init(status: Int, headers: HTTPFields = [:], body: [UInt8] = []) {
        self.status = status
        self.storedHeaders = .fields(headers)
        self.body = body
    }

    /// - Parameter headerLines: "name: value" lines, each ending in a line feed.
    init(status: Int, headerLines: [UInt8], body: [UInt8]) {
        self.status = status
        self.storedHeaders = .lines(headerLines)
        self.body = body
    }
}
