import Foundation
import PushCore
import Synchronization

/// Version-4 UUIDs for `apns-id`s, one per notification. Foundation's `UUID()` on Linux opens
/// `/dev/urandom` for every call, and even two `getrandom` calls per id are system calls on the hot path of
/// every fan-out. An `apns-id` has to be unique (APNs echoes it in
/// its answer and logs), not unguessable: each id mixes the next value of a counter with two words drawn
/// once per process from the system generator.
enum FastUUID {
    private static let seed: (UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()
    private static let counter = Atomic<UInt64>(0)

    static func make() -> UUID {
        let n = counter.wrappingAdd(1, ordering: .relaxed).newValue
        // splitmix64's finaliser is a bijection: distinct counter values give distinct words.
        var high = mix(n &+ seed.0)
        var low = mix(n ^ seed.1)
        high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // RFC 4122 variant
        // The 16 bytes in order, read straight from the two words (no intermediate arrays).
        return withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { UUID(uuid: $0.load(as: uuid_t.self)) }
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
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
