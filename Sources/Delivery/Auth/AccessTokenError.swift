import Curl

/// Why no OAuth access token could be had from the token endpoint.
public enum AccessTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The endpoint answered with an error status (`invalid_grant` and friends arrive as 400/401).
    case refused(status: Int, error: String?, body: String)
    /// A 200 whose body lacks `access_token`.
    case malformedResponse(String)
    case transport(CurlError)

    /// Worth trying again later: the endpoint's own trouble or the network's, not our credentials'.
    public var isTransient: Bool {
        switch self {
        case .refused(let status, _, _): status == 429 || status >= 500
        case .malformedResponse: false
        case .transport(let error):
            error != .cancelled && error != .shutdown && !(error.code?.isTLSConfigurationProblem ?? false)
        }
    }

    public var description: String {
        switch self {
        case .refused(let status, let error, _): "token endpoint answered \(status)\(error.map { " \($0)" } ?? "")"
        case .malformedResponse(let reason): "token endpoint answer unreadable: \(reason)"
        case .transport(let error): "token endpoint unreachable: \(error)"
        }
    }
}
