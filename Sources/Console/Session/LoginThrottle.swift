import Foundation
import Synchronization

/// Wrong master keys per address (issue 17): five within a minute lock the address for a minute. A pure
/// value: the caller passes the time, so tests never sleep. Kept per process (see docs/console.md).
public struct LoginThrottle: Sendable {
    public static let maxFailures = 5
    public static let window: TimeInterval = 60
    public static let lockout: TimeInterval = 60
    /// Beyond this many addresses, stale entries are dropped, so a scan of many addresses cannot grow memory.
    static let pruneAbove = 10_000

    private var failures: [String: [Date]] = [:]
    private var lockedUntil: [String: Date] = [:]

    public init() {}

    /// Until when `address` is refused, or nil when it may try.
    public func locked(_ address: String, now: Date) -> Date? {
        guard let until = lockedUntil[address], until > now else { return nil }
        return until
    }

    /// Records a wrong key; returns the end of the lock when this failure starts one.
    @discardableResult
    public mutating func recordFailure(_ address: String, now: Date) -> Date? {
        if failures.count > Self.pruneAbove { prune(now: now) }
        let recent = (failures[address] ?? []).filter { now.timeIntervalSince($0) < Self.window } + [now]
        guard recent.count >= Self.maxFailures else {
            failures[address] = recent
            return nil
        }
        failures[address] = nil
        let until = now.addingTimeInterval(Self.lockout)
        lockedUntil[address] = until
        return until
    }

    /// Addresses with failures on record (tests check the pruning).
    var trackedAddresses: Int { failures.count + lockedUntil.count }

    /// A right key forgets the address's earlier mistakes.
    public mutating func recordSuccess(_ address: String) {
        failures[address] = nil
    }

    private mutating func prune(now: Date) {
        failures = failures.filter { $0.value.contains { now.timeIntervalSince($0) < Self.window } }
        lockedUntil = lockedUntil.filter { $0.value > now }
    }
}

/// The process's one throttle, shared by every request.
final class SharedLoginThrottle: Sendable {
    private let state = Mutex(LoginThrottle())

    func locked(_ address: String, now: Date) -> Date? { state.withLock { $0.locked(address, now: now) } }

    func recordFailure(_ address: String, now: Date) -> Date? {
        state.withLock { $0.recordFailure(address, now: now) }
    }

    func recordSuccess(_ address: String) { state.withLock { $0.recordSuccess(address) } }
}
