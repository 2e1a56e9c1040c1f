/// Decides whether a failed transfer is re-run on another connection, transparently to the caller.
///
/// A request whose stream never produced a response byte, and that failed with a connection-level error
/// (GOAWAY, reset, refused stream, connect failure), was not processed by the server, so sending it again is
/// safe even for POST. Anything that saw a response byte, timed out or failed TLS verification is returned as is.
public enum CurlConnectionRetry {
    static let retriableCodes: Set<CurlCode> = [
        .http2, .http2Stream, .sendError, .recvError, .gotNothing, .couldNotConnect, .sslConnectError,
    ]

    /// - Parameters:
    ///   - retriesSoFar: how many times this request was already re-run.
    ///   - limit: the most re-runs allowed.
    public static func shouldRetry(code: CurlCode, responseStarted: Bool, retriesSoFar: Int, limit: Int) -> Bool {
        guard !responseStarted, retriesSoFar < limit else { return false }
        return retriableCodes.contains(code)
    }
}
