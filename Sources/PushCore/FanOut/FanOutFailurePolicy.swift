import Foundation

/// What the fan-out does when work for one push raises an error: the pure decision, tested without I/O.
///
/// An outage of the database is nobody's fault and never counts against a push: the work waits and resumes.
/// An error that the same input will raise again (a stored request that no longer parses, a query PostgreSQL
/// refuses) ends the push at once. Anything else is retried with exponential backoff and jitter, at most
/// `maxAttempts` times, after which the push ends `failed` with the last reason — so no failing job can be
/// handed to the loop forever, and none holds up the others (it moves to the back of the due queue).
public struct FanOutFailurePolicy: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// The database is unreachable: wait, do not count.
        case databaseUnavailable
        /// The same input fails the same way every time.
        case permanent
        /// Possibly transient (a timeout, a serialization failure, an internal fault).
        case transient
    }

    public enum Decision: Sendable, Hashable {
        /// Try again after `delay`; `attempts` is the new count to store.
        case retry(after: Duration, attempts: Int)
        /// End the push: `status` is what its record says.
        case fail(status: String)
        /// Leave the job as it is; the loop backs off on its own.
        case wait
    }

    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(maxAttempts: Int = 5, baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(60)) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// `attempts` is how many attempts failed before this one; `random` in 0..<1 spreads retries (jitter).
    public func decide(kind: Kind, reason: String, attempts: Int, random: Double) -> Decision {
        switch kind {
        case .databaseUnavailable:
            return .wait
        case .permanent:
            return .fail(status: Self.status(reason))
        case .transient:
            let failed = attempts + 1
            guard failed < maxAttempts else { return .fail(status: Self.status(reason)) }
            // Exponential, capped, with half of it jittered: 1 s, 2 s, 4 s… (±50 %).
            let exponent = min(failed - 1, 30)
            let full = min(baseDelay * (1 << exponent), maxDelay)
            let delay = full / 2 + full / 2 * max(0, min(random, 1))
            return .retry(after: delay, attempts: failed)
        }
    }

    /// A push record's status for a push that could not be sent: always starts with `failed: `.
    public static func status(_ reason: String) -> String {
        let trimmed = reason.count > 300 ? String(reason.prefix(300)) + "…" : reason
        return "failed: " + trimmed
    }
}
