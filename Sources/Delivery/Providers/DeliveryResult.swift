/// The final outcome of a retrying `send`, with how many attempts it took.
public struct DeliveryResult: Sendable, Hashable {
    public var outcome: DeliveryOutcome
    public var attempts: Int

    public init(outcome: DeliveryOutcome, attempts: Int) {
        self.outcome = outcome
        self.attempts = attempts
    }
}
