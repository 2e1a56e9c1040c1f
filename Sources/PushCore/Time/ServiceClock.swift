import Foundation

/// The one source of time for the service: what it reads as "now" (due times, expiry, leases, token ages,
/// every event's time) and how it waits (poll intervals, backoffs, lease renewals, retry delays). Everything
/// that reads the time or waits takes one, so a test can hand the whole service a clock it moves itself, and
/// a sleep on that clock ends when the test advances it rather than after real time.
public struct ServiceClock: Sendable {
    private let read: @Sendable () -> Date
    private let wait: @Sendable (Duration) async throws -> Void

    public init(
        now: @escaping @Sendable () -> Date, sleep: @escaping @Sendable (Duration) async throws -> Void
    ) {
        self.read = now
        self.wait = sleep
    }

    public func now() -> Date { read() }

    /// Waits `duration` on this clock; throws `CancellationError` when the task is cancelled first.
    public func sleep(for duration: Duration) async throws { try await wait(duration) }

    /// The time elapsed on this clock since `start`, an instant it read earlier.
    public func elapsed(since start: Date) -> Duration { .seconds(now().timeIntervalSince(start)) }

    public static let system = ServiceClock(now: { Date() }, sleep: { try await Task.sleep(for: $0) })
}

extension Date {
    /// This instant moved by `duration` (to the nanosecond).
    public func adding(_ duration: Duration) -> Date {
        addingTimeInterval(duration.timeInterval)
    }
}
