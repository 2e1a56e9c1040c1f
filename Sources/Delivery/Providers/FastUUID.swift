import Foundation
import PushCore

/// Version-4 UUIDs from the system random generator (getrandom). Foundation's `UUID()` on Linux opened
/// `/dev/urandom` for every call, which showed up as 3% of the fan-out's CPU (one `apns-id` per push).
enum FastUUID {
    static func make() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var high = generator.next() as UInt64
        var low = generator.next() as UInt64
        high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 4122 variant
        // The 16 bytes in order, read straight from the two words (no intermediate arrays).
        return withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { UUID(uuid: $0.load(as: uuid_t.self)) }
    }

    /// The canonical upper-case form (`8-4-4-4-12`), as Foundation's `uuidString` spells it, without its
    /// formatting machinery: one per notification in a fan-out.
    static func string(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            UUIDText.format(
                high: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                low: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)), uppercase: true)
        }
    }
}
