/// Why `NGHTTP2Client.send(_:)` produced no response. HTTP error statuses are responses, not errors.
public enum NGHTTP2Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// No connection: the host name did not resolve, TCP failed on every address, or the TLS handshake was cut
    /// short or timed out. Retried `connectionRetries` times before it surfaces.
    case connect(String)
    /// TLS refused: the certificate failed verification (CA, host name), the server refused the handshake
    /// (e.g. no client certificate), or it does not offer HTTP/2 by ALPN; also a TLS set-up that could not load
    /// its CA file or client certificate. Never retried.
    case tls(String)
    /// The request's deadline passed; its stream was reset with CANCEL.
    case timeout(responseStarted: Bool)
    /// The server reset the stream (the reason is the HTTP/2 error code's name, e.g. `INTERNAL_ERROR`), or the
    /// connection was lost (the reason then starts with "connection lost").
    case reset(String, responseStarted: Bool)
    /// The server's answer broke HTTP/2 (a malformed response, a session error).
    case protocolError(String)
    /// The awaiting task was cancelled; a started stream was reset with CANCEL.
    case cancelled
    /// The client was shutting down, or shut down, before the request could run.
    case shutdown
    /// The request could not be sent as given (not an absolute https URL, no method).
    case invalidRequest(String)

    /// Repeating the request cannot help until the configuration changes: TLS set-up, certificates, the URL.
    public var isConfigurationProblem: Bool {
        switch self {
        case .tls, .invalidRequest: true
        default: false
        }
    }

    /// Whether any response byte arrived, i.e. whether the server may have acted on the request. A protocol
    /// error counts as started: the answer could not be read, so nothing says the request was not processed.
    public var responseStarted: Bool {
        switch self {
        case .timeout(let started), .reset(_, let started): started
        case .protocolError: true
        case .connect, .tls, .cancelled, .shutdown, .invalidRequest: false
        }
    }

    public var isTimeout: Bool {
        if case .timeout = self { true } else { false }
    }

    /// Short, for push records' error reasons.
    public var description: String {
        switch self {
        case .connect(let reason): "nghttp2: cannot connect: \(reason)"
        case .tls(let reason): "nghttp2: TLS: \(reason)"
        case .timeout(let started): "nghttp2: timeout" + Self.suffix(started)
        case .reset(let reason, let started):
            (reason.hasPrefix("connection") ? "nghttp2: \(reason)" : "nghttp2: stream reset (\(reason))")
                + Self.suffix(started)
        case .protocolError(let reason): "nghttp2: protocol error: \(reason)"
        case .cancelled: "nghttp2: cancelled"
        case .shutdown: "nghttp2: client shut down"
        case .invalidRequest(let reason): "nghttp2: invalid request: \(reason)"
        }
    }

    private static func suffix(_ started: Bool) -> String { started ? " after the response began" : "" }
}
