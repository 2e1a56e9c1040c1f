import Foundation

/// Version-4 UUIDs from the system random generator (getrandom). Foundation's `UUID()` on Linux opened
/// `/dev/urandom` for every call, which showed up as 3% of the fan-out's CPU (one `apns-id` per push).
enum FastUUID {
    static func make() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var high = generator.next() as UInt64
        var low = generator.next() as UInt64
        high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 4122 variant
        let h = withUnsafeBytes(of: high.bigEndian, Array.init)
        let l = withUnsafeBytes(of: low.bigEndian, Array.init)
        return UUID(uuid: (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], l[0], l[1], l[2], l[3], l[4], l[5], l[6], l[7]))
    }
}
