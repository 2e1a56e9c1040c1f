import Curl

extension DeliveryOutcome {
    /// The outcome of an attempt that got no HTTP answer. Connection-level trouble is retryable (the transport
    /// already re-ran unstarted streams); TLS set-up errors, cancellation and shutdown are not, since repeating
    /// cannot help.
    public static func transportFailure(_ error: TransportFailure) -> DeliveryOutcome {
        error.isPermanent
            ? .permanent(reason: .transport(error)) : .retryable(reason: .transport(error), retryAfter: nil)
    }

    /// `transportFailure` of a libcurl client's error (WNS, the Android vendors).
    public static func transportFailure(_ error: CurlError) -> DeliveryOutcome {
        transportFailure(.libcurl(error))
    }

    /// The outcome of an FCM attempt that could not get an access token.
    public static func accessTokenFailure(_ error: AccessTokenError) -> DeliveryOutcome {
        error.isTransient
            ? .retryable(reason: .accessToken(error), retryAfter: nil) : .permanent(reason: .accessToken(error))
    }
}
