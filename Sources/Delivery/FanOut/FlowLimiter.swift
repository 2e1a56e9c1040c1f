import Foundation

/// `flow_control`: spaces a push's deliveries to at most `rate` devices per second within this process.
actor FlowLimiter {
    private var nextFree: [String: ContinuousClock.Instant] = [:]

    /// Waits until `count` more devices of `pushId` may go out at `rate` per second.
    func acquire(pushId: String, count: Int, rate: Int) async throws {
        let now = ContinuousClock.now
        let start = max(now, nextFree[pushId] ?? now)
        nextFree[pushId] = start + .milliseconds(count * 1000 / max(rate, 1))
        if start > now { try await Task.sleep(until: start, clock: .continuous) }
    }
}
