import Foundation
import PushCore
import Synchronization

/// When the fan-out's targeting loop last went round, for `/ready`: a loop that stopped (crashed task,
/// deadlock, shutdown) stops beating. Judged on the fan-out's clock, as its loop waits on it.
public final class Heartbeat: Sendable {
    private let last = Mutex<Date?>(nil)
    private let clock: ServiceClock

    public init(clock: ServiceClock = .system) { self.clock = clock }

    func beat() {
        let now = clock.now()
        last.withLock { $0 = now }
    }

    /// Nil while the loop beat within `limit`, else why it is not alive.
    public func problem(limit: Duration) -> String? {
        guard let last = last.withLock({ $0 }) else { return "the fan-out loop has not started" }
        let age = clock.elapsed(since: last)
        return age <= limit ? nil : "the fan-out loop last ran \(age) ago"
    }
}
