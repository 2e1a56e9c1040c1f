import Curl
import HTTPTypes

/// One request of a per-device provider, built once for whichever library sends it (`ProviderTransport`).
struct ProviderRequest: Sendable {
    var method: HTTPRequest.Method
    /// An absolute `https://` URL.
    var url: String
    /// The request's own lines, sent before `shared`.
    var headers: HTTPFields
    var shared: SharedHeaderLines?
    var body: [UInt8]?
    /// From submission to the last body byte; `nil` takes the client's default.
    var timeout: Duration?

    init(
        method: HTTPRequest.Method, url: String, headers: HTTPFields = [:], shared: SharedHeaderLines? = nil,
        body: [UInt8]? = nil, timeout: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.shared = shared
        self.body = body
        self.timeout = timeout
    }
}
