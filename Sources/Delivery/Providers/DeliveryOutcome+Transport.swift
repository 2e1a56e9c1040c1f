import Curl

extension DeliveryOutcome {
    /// The outcome of an attempt that got no HTTP answer. Connection-level trouble is retryable (the Curl
    /// client already re-ran unstarted streams); TLS set-up errors, cancellation and shutdown are not, since
    /// repeating cannot help.
    public static func transportFailure(_ error: CurlError) -> DeliveryOutcome {
        switch error {
        case .cancelled, .shutdown, .invalidRequest:
            return .permanent(reason: .transport(error))
        case .transfer(let code, _, _):
            if code.isTLSConfigurationProblem || code == .urlMalformed || code == .unsupportedProtocol {
                return .permanent(reason: .transport(error))
            }
            return .retryable(reason: .transport(error), retryAfter: nil)
        }
    }

    /// The outcome of an FCM attempt that could not get an access token.
    public static func accessTokenFailure(_ error: AccessTokenError) -> DeliveryOutcome {
        error.isTransient
            ? .retryable(reason: .accessToken(error), retryAfter: nil) : .permanent(reason: .accessToken(error))
    }
}
