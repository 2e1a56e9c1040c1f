/// Bytes as lower-case hex, written byte by byte: request signatures and console MACs are compared as hex,
/// and `String(format: "%02x")` per byte is slow work to repeat for every signed request.
public enum HexText {
    /// `0-9`, `a-f`, `A-F` as UTF-8 bytes (never another script's digits).
    public static func isHexDigit(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
    }

    public static func lowercase(_ bytes: some Collection<UInt8>) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 2 * bytes.count) { out in
            var index = 0
            for byte in bytes {
                out[index] = digits.utf8Start[Int(byte >> 4)]
                out[index + 1] = digits.utf8Start[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }
}
