/// A provider error answer: the HTTP status and the provider's reason (APNs `reason`, FCM `errorCode`, WNS'
/// name for the status).
struct ProviderRejection: Error, Hashable {
    var status: Int
    var reason: String

    static func transient(status: Int, for provider: SimulatedProvider) -> ProviderRejection {
        switch (provider, status) {
        case (.apns, 429): return ProviderRejection(status: 429, reason: "TooManyRequests")
        case (.apns, 500): return ProviderRejection(status: 500, reason: "InternalServerError")
        case (.apns, _): return ProviderRejection(status: 503, reason: "ServiceUnavailable")
        case (.fcm, 429): return ProviderRejection(status: 429, reason: "QUOTA_EXCEEDED")
        case (.fcm, 500): return ProviderRejection(status: 500, reason: "INTERNAL")
        case (.fcm, _): return ProviderRejection(status: 503, reason: "UNAVAILABLE")
        case (.wns, 429): return ProviderRejection(status: 429, reason: "TooManyRequests")
        case (.wns, 500): return ProviderRejection(status: 500, reason: "InternalServerError")
        case (.wns, _): return ProviderRejection(status: 503, reason: "ServiceUnavailable")
        // The vendor look-alikes turn a ratio draw into their own retry answer and never ask for this one.
        case (.hms, _), (.honor, _), (.mi, _), (.oppo, _), (.vivo, _), (.mz, _):
            return ProviderRejection(status: 503, reason: "ServiceUnavailable")
        }
    }
}
