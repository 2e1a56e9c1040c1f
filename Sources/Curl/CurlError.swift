/// Why `CurlClient.send(_:)` produced no response. HTTP error statuses are responses, not errors.
public enum CurlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// libcurl failed the transfer. `responseStarted` tells whether any response byte arrived, i.e. whether
    /// the server may have acted on the request.
    case transfer(code: CurlCode, message: String, responseStarted: Bool)
    /// The awaiting task was cancelled; the transfer was removed.
    case cancelled
    /// The client is shutting down or was shut down before the request could run.
    case shutdown
    /// The request could not be handed to libcurl (an option was refused).
    case invalidRequest(code: CurlCode, message: String)

    /// The libcurl code, where there is one.
    public var code: CurlCode? {
        switch self {
        case .transfer(let code, _, _), .invalidRequest(let code, _): code
        case .cancelled, .shutdown: nil
        }
    }

    public var isTimeout: Bool { code == .operationTimedOut }

    public var description: String {
        switch self {
        case .transfer(let code, let message, let started):
            "curl error \(code.rawValue) (\(code)): \(message)\(started ? " after the response began" : "")"
        case .cancelled: "request cancelled"
        case .shutdown: "HTTP client shut down"
        case .invalidRequest(let code, let message): "invalid request, curl error \(code.rawValue): \(message)"
        }
    }
}
