/// Bounds for retrying one notification: attempts, exponential backoff with full jitter, Retry-After limits.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// A provider asking to wait longer than this is not waited for: the notification is given up as
    /// retryable, for the caller to reschedule instead of holding a worker.
    public var maxRetryAfter: Duration
    /// New provider tokens per notification after `ExpiredProviderToken`/401; one is enough unless clocks lie.
    public var maxCredentialRefreshes: Int

    public init(
        maxAttempts: Int = 5,
        baseDelay: Duration = .milliseconds(200),
        maxDelay: Duration = .seconds(10),
        maxRetryAfter: Duration = .seconds(60),
        maxCredentialRefreshes: Int = 1
    ) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.maxCredentialRefreshes = maxCredentialRefreshes
    }
}
