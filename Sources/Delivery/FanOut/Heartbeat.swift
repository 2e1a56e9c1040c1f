import Synchronization

/// When the fan-out's targeting loop last went round, for `/ready`: a loop that stopped (crashed task,
/// deadlock, shutdown) stops beating.
public final class Heartbeat: Sendable {
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    public init() {}

    func beat() { last.withLock { $0 = .now } }

    /// Nil while the loop beat within `limit`, else why it is not alive.
    public func problem(limit: Duration) -> String? {
        guard let last = last.withLock({ $0 }) else { return "the fan-out loop has not started" }
        let age = ContinuousClock.now - last
        return age <= limit ? nil : "the fan-out loop last ran \(age) ago"
    }
}
