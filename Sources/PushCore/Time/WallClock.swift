import Foundation

/// Where the fan-out reads the time, so that tests can move it instead of sleeping.
public struct WallClock: Sendable {
    public let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) { self.now = now }

    public static let system = WallClock { Date() }

    /// The system time shifted by `offset` seconds.
    public static func offset(by offset: TimeInterval) -> WallClock { WallClock { Date().addingTimeInterval(offset) } }
}

extension Date {
    /// This instant moved by `duration` (to the nanosecond).
    public func adding(_ duration: Duration) -> Date {
        addingTimeInterval(duration.timeInterval)
    }
}
