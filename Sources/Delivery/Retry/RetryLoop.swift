/// Runs attempts under `RetryStateMachine` until an outcome is final: the shared body of the clients' `send`.
/// An attempt that reports `expiredProviderToken` has already dropped the stale credential, so the loop only
/// has to try again.
enum RetryLoop {
    static func run(
        policy: RetryPolicy,
        random: @Sendable () -> Double,
        sleep: DeliverySleep,
        attempt: () async -> DeliveryOutcome
    ) async -> DeliveryResult {
        var machine = RetryStateMachine(policy: policy)
        while true {
            let outcome = await attempt()
            let action: RetryAction
            switch outcome {
            case .success, .invalidToken, .permanent:
                return DeliveryResult(outcome: outcome, attempts: machine.attempts + 1)
            case .retryable(_, let retryAfter):
                action = machine.failed(retryAfter: retryAfter, random: random())
            case .expiredProviderToken:
                action = machine.credentialsRejected()
            }
            switch action {
            case .giveUp:
                return DeliveryResult(outcome: outcome, attempts: machine.attempts)
            case .retry(let delay):
                if delay > .zero {
                    do {
                        try await sleep(delay)
                    } catch {
                        // Cancelled while waiting: the last answer is the final one.
                        return DeliveryResult(outcome: outcome, attempts: machine.attempts)
                    }
                }
            }
        }
    }
}
