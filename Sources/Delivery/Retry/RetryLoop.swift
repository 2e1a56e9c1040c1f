/// Runs attempts under `RetryStateMachine` until an outcome is final: the shared body of the clients' `send`.
/// `first` is the outcome of an attempt already made elsewhere, judged as the first one.
/// An attempt that reports `expiredProviderToken` has already dropped the stale credential, so the loop only
/// has to try again.
enum RetryLoop {
    static func run(
        policy: RetryPolicy,
        random: @Sendable () -> Double,
        sleep: DeliverySleep,
        first: DeliveryOutcome? = nil,
        attempt: () async -> DeliveryOutcome
    ) async -> DeliveryResult {
        var machine = RetryStateMachine(policy: policy)
        var made = first
        while true {
            let outcome: DeliveryOutcome
            if let answered = made {
                // An attempt the caller already made (a fan-out's first attempts go out together).
                outcome = answered
                made = nil
            } else {
                outcome = await attempt()
            }
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
