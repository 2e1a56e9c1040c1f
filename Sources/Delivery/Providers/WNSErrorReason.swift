/// Why WNS did not take a notification. WNS answers with bare HTTP statuses (its `X-WNS-Error-Description` is
/// free text), so the reasons are named after Microsoft's table of response codes; others are kept as `unknown`.
public enum WNSErrorReason: Sendable, Hashable, CustomStringConvertible {
    /// 400: a header or the payload is malformed.
    case badRequest
    /// 401: the access token was refused.
    case unauthorized
    /// 403: authenticated, but not allowed to send to this channel (it belongs to another app).
    case forbidden
    /// 404: the channel URI is not valid or not recognised.
    case channelNotFound
    /// 406: this channel is being throttled.
    case throttled
    /// 410: the channel expired.
    case channelExpired
    /// 413: the payload is over 5 KB.
    case payloadTooLarge
    case tooManyRequests
    case internalServerError
    case serviceUnavailable
    /// No access token could be had from the token endpoint.
    case accessToken(AccessTokenError)
    case unknown(status: Int)

    public init(status: Int) {
        switch status {
        case 400: self = .badRequest
        case 401: self = .unauthorized
        case 403: self = .forbidden
        case 404: self = .channelNotFound
        case 406: self = .throttled
        case 410: self = .channelExpired
        case 413: self = .payloadTooLarge
        case 429: self = .tooManyRequests
        case 500: self = .internalServerError
        case 503: self = .serviceUnavailable
        default: self = .unknown(status: status)
        }
    }

    public var description: String {
        switch self {
        case .badRequest: "BadRequest"
        case .unauthorized: "Unauthorized"
        case .forbidden: "Forbidden"
        case .channelNotFound: "ChannelNotFound"
        case .throttled: "Throttled"
        case .channelExpired: "ChannelExpired"
        case .payloadTooLarge: "PayloadTooLarge"
        case .tooManyRequests: "TooManyRequests"
        case .internalServerError: "InternalServerError"
        case .serviceUnavailable: "ServiceUnavailable"
        case .accessToken(let error): error.description
        case .unknown(let status): "HTTP \(status)"
        }
    }
}
