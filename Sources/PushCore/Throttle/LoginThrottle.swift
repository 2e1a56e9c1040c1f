import Foundation
import Synchronization

/// Failed sign-ins per key (an address, a username): `maxFailures` within `window` lock the key for
/// `lockout`. The console's wrong master keys (issue 17) and `/1.1/login`'s wrong passwords (SPEC §12.5) use
/// it. A pure value: the caller passes the time, so tests never sleep. Kept per process (see docs/console.md).
public struct LoginThrottle: Sendable {
    /// The console's limits: five wrong keys within a minute lock the address for a minute.
    public static let maxFailures = 5
    public static let window: TimeInterval = 60
    public static let lockout: TimeInterval = 60

    public let maxFailures: Int
    public let window: TimeInterval
    public let lockout: TimeInterval
    /// Beyond this many addresses, stale entries are dropped, so a scan of many addresses cannot grow memory.
    static let pruneAbove = 10_000

    private var failures: [String: [Date]] = [:]
    private var lockedUntil: [String: Date] = [:]

    public init(
        maxFailures: Int = LoginThrottle.maxFailures, window: TimeInterval = LoginThrottle.window,
        lockout: TimeInterval = LoginThrottle.lockout
    ) {
        self.maxFailures = maxFailures
        self.window = window
        self.lockout = lockout
    }

    /// Until when `address` is refused, or nil when it may try.
    public func locked(_ address: String, now: Date) -> Date? {
        guard let until = lockedUntil[address], until > now else { return nil }
        return until
    }

    /// Records a wrong key; returns the end of the lock when this failure starts one.
    @discardableResult
    public mutating func recordFailure(_ address: String, now: Date) -> Date? {
        if failures.count > Self.pruneAbove { prune(now: now) }
        let recent = (failures[address] ?? []).filter { now.timeIntervalSince($0) < window } + [now]
        guard recent.count >= maxFailures else {
            failures[address] = recent
            return nil
        }
        failures[address] = nil
        let until = now.addingTimeInterval(lockout)
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
        failures = failures.filter { $0.value.contains { now.timeIntervalSince($0) < window } }
        lockedUntil = lockedUntil.filter { $0.value > now }
    }
}

/// One throttle shared by every request of the process.
public final class SharedLoginThrottle: Sendable {
    private let state: Mutex<LoginThrottle>

    public init(_ throttle: LoginThrottle = LoginThrottle()) { state = Mutex(throttle) }

    public func locked(_ address: String, now: Date) -> Date? { state.withLock { $0.locked(address, now: now) } }

    @discardableResult
    public func recordFailure(_ address: String, now: Date) -> Date? {
        state.withLock { $0.recordFailure(address, now: now) }
    }

    public func recordSuccess(_ address: String) { state.withLock { $0.recordSuccess(address) } }
}
