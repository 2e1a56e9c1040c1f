/// The canonical `8-4-4-4-12` text of 128 bits, written byte by byte: a push's fan-out makes one id per
/// notification (and the simulator one per answer), where Foundation's `uuidString` formats through
/// `sprintf`.
public enum UUIDText {
    /// - Parameters:
    ///   - high: the first 8 bytes, most significant first; `low` the last 8.
    ///   - uppercase: `uuidString`'s spelling; lower case otherwise.
    public static func format(high: UInt64, low: UInt64, uppercase: Bool) -> String {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 36) { out in
            var index = 0
            for position in 0..<16 {
                let word = position < 8 ? high : low
                let byte = UInt8(truncatingIfNeeded: word >> (56 - 8 * (position % 8)))
                if position == 4 || position == 6 || position == 8 || position == 10 {
                    out[index] = UInt8(ascii: "-")
                    index += 1
                }
                out[index] = digits.utf8Start[Int(byte >> 4)]
                out[index + 1] = digits.utf8Start[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }
}
