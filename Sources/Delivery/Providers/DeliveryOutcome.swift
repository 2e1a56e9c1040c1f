import Foundation

/// What one attempt to hand a notification to APNs or FCM came to, classified for the caller's next step.
public enum DeliveryOutcome: Sendable, Hashable {
    /// Accepted. `id` is the `apns-id` (APNs) or the message `name` (FCM).
    case success(id: String)
    /// The device token is dead: invalidate the installation. `since` is when the provider says it stopped
    /// being valid (APNs' `timestamp`), so a re-registration after that date revives it.
    case invalidToken(reason: ProviderReason, since: Date?)
    /// Worth another attempt later (429, 5xx, connection trouble), no sooner than `retryAfter` when given.
    case retryable(reason: ProviderReason, retryAfter: Duration?)
    /// Our provider credential expired (APNs `ExpiredProviderToken`, FCM 401): refresh it and retry at once.
    case expiredProviderToken(reason: ProviderReason)
    /// Rejected for good (bad payload, topic, credentials…): retrying the same request cannot succeed.
    case permanent(reason: ProviderReason)

    public var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }

    /// The failure reason, `nil` on success.
    public var reason: ProviderReason? {
        switch self {
        case .success: nil
        case .invalidToken(let reason, _), .retryable(let reason, _), .expiredProviderToken(let reason),
            .permanent(let reason):
            reason
        }
    }
}
