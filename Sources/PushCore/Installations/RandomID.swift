/// LeanCloud-style object ids: lower-case hex, random.
public enum RandomID {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Sixteen hex digits per 64-bit draw: on Linux every draw of `SystemRandomNumberGenerator` is a
    /// `getrandom` system call, and a system call per digit would weigh on every save.
    public static func make(length: Int = 24) -> String {
        var g = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        while bytes.count < length {
            var word = g.next()
            for _ in 0..<min(16, length - bytes.count) {
                bytes.append(digits[Int(word & 0xf)])
                word >>= 4
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
