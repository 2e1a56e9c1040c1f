import PushCore
import Synchronization

/// Makes `apns-id` values for requests that did not bring one.
///
/// `UUID()` reads the kernel's random source and formats through `sprintf`, which showed in load profiles; an id
/// only has to be unique, so a random per-process prefix plus a counter, laid out like a version-4 UUID, will do.
final class MessageIDGenerator: Sendable {
    private let prefix: UInt64
    private let counter = Atomic<UInt64>(0)

    init() {
        var generator = SystemRandomNumberGenerator()
        self.prefix = generator.next()
    }

    func next() -> String {
        let count = self.counter.add(1, ordering: .relaxed).newValue
        let high = (self.prefix & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (count & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return UUIDText.format(high: high, low: low, uppercase: false)
    }
}
