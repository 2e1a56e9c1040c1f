import Foundation
import PushCore
import Synchronization

/// A clock tests move forward instead of sleeping: the system time plus an offset they advance. It keeps
/// running between moves, so leases and timeouts measured on it still pass at the real pace.
public final class MovableClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    public init() {}

    public var wall: WallClock { WallClock { [self] in Date().addingTimeInterval(offset.withLock { $0 }) } }

    public func now() -> Date { wall.now() }

    /// Moves the time `seconds` ahead.
    public func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}
