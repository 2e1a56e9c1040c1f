/// Retry decisions for one notification. Pure: randomness comes in as a number in [0, 1), time not at all.
///
/// Backoff is "full jitter" (a uniform delay between zero and `min(maxDelay, baseDelay · 2^(n-1))` after the
/// n-th failure), which spreads a burst of failures instead of retrying them in lock step; a provider's
/// Retry-After is a floor under that delay.
public struct RetryStateMachine: Sendable {
    public let policy: RetryPolicy
    /// Attempts that have failed so far.
    public private(set) var failures = 0
    public private(set) var credentialRefreshes = 0

    public init(policy: RetryPolicy = RetryPolicy()) {
        self.policy = policy
    }

    /// Attempts made so far, assuming one is made after every `.retry`.
    public var attempts: Int { failures }

    /// A retryable failure (429, 5xx, transport).
    /// - Parameter random: uniform in [0, 1).
    public mutating func failed(retryAfter: Duration?, random: Double) -> RetryAction {
        failures += 1
        guard failures < policy.maxAttempts else { return .giveUp }
        if let retryAfter, retryAfter > policy.maxRetryAfter { return .giveUp }
        let ceiling = backoffCeiling(afterFailures: failures)
        let jittered = ceiling * min(max(random, 0), 1)
        return .retry(after: max(jittered, retryAfter ?? .zero))
    }

    /// The provider refused our credentials as expired; the caller refreshes them and tries again at once.
    public mutating func credentialsRejected() -> RetryAction {
        failures += 1
        credentialRefreshes += 1
        guard failures < policy.maxAttempts, credentialRefreshes <= policy.maxCredentialRefreshes else {
            return .giveUp
        }
        return .retry(after: .zero)
    }

    /// `min(maxDelay, baseDelay · 2^(failures-1))`.
    public func backoffCeiling(afterFailures failures: Int) -> Duration {
        let exponent = min(max(failures - 1, 0), 30)
        let ceiling = policy.baseDelay * (1 << exponent)
        return min(ceiling, policy.maxDelay)
    }
}
