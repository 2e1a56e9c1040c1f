/// What `RetryStateMachine` tells the sender to do after a failed attempt.
public enum RetryAction: Sendable, Hashable {
    case retry(after: Duration)
    case giveUp
}
