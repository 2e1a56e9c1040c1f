import Foundation
import Synchronization

/// A settable `now` for code that takes `@Sendable () -> Date`.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { current = Mutex(start) }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    var function: @Sendable () -> Date { { self.now } }
}
