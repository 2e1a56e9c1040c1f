/// Hex helpers shared by the device-token check and the simulator's access tokens.
enum HexDigits {
    static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte &- UInt8(ascii: "A") &+ 10
        default: return nil
        }
    }

    /// APNs device tokens are hex strings of even length; Apple answers anything else with `BadDeviceToken`.
    static func isDeviceToken(_ token: Substring) -> Bool {
        var count = 0
        for byte in token.utf8 {
            guard Self.value(of: byte) != nil else { return false }
            count += 1
        }
        return count > 0 && count.isMultiple(of: 2) && count <= 200
    }

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var output: [UInt8] = []
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}
