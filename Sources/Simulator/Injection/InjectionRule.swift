/// Answers requests for matching device tokens with a provider error instead of success.
///
/// `reason` is the provider's own vocabulary: an APNs `reason` (`BadDeviceToken`, `Unregistered`, …) or an FCM
/// `errorCode` (`UNREGISTERED`, `QUOTA_EXCEEDED`, …). For FCM the Google `status` string is derived from `status`.
/// For an Android vendor it is a ``VendorSignal`` name (`invalid`, `unavailable`, `quota`, `error`) and the vendor's
/// look-alike chooses the status and code it answers with.
/// Rules are only consulted for requests that are otherwise valid, as the real services validate first; the first
/// matching rule wins. See ``InjectionRule/defaults`` for the built-in set.
public struct InjectionRule: Sendable, Hashable {
    public var provider: SimulatedProvider
    public var match: TokenMatch
    public var status: Int
    public var reason: String
    /// `nil` fails every attempt; `n` fails the first `n` attempts for each matching token and then lets it succeed,
    /// which is how retry-with-backoff paths are exercised.
    public var failingAttempts: Int?

    public init(
        provider: SimulatedProvider, match: TokenMatch, status: Int, reason: String, failingAttempts: Int? = nil
    ) {
        self.provider = provider
        self.match = match
        self.status = status
        self.reason = reason
        self.failingAttempts = failingAttempts
    }
}
