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
        var bytes = [UInt8](repeating: 0, count: 36)
        var index = 0
        for (offset, word) in [(0, high), (8, low)] {
            for byteIndex in 0..<8 {
                let byte = UInt8(truncatingIfNeeded: word >> (56 - 8 * byteIndex))
                let position = offset + byteIndex
                if position == 4 || position == 6 || position == 8 || position == 10 {
                    bytes[index] = UInt8(ascii: "-")
                    index += 1
                }
                bytes[index] = Self.digits[Int(byte >> 4)]
                bytes[index + 1] = Self.digits[Int(byte & 0x0F)]
                index += 2
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)
}
