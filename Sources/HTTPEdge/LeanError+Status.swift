import PushCore

extension LeanError.Kind {
    /// The HTTP status a kind is answered with at the service's two edges: the REST API's responses and the
    /// channel's refusals (close code 4000 + this status, docs/channel.md). One table for both; nothing below
    /// the edges knows HTTP.
    public var httpStatus: Int {
        switch self {
        case .badRequest: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .conflict: 409
        case .tooLarge: 413
        case .tooManyRequests: 429
        case .unavailable: 503
        case .internalFailure: 500
        }
    }
}
