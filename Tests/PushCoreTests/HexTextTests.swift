import Foundation
import PushCore
import Testing

@Suite("Hex text")
struct HexTextTests {
    @Test("bytes are written as two lower-case hex digits each, as String(format: \"%02x\") writes them")
    func lowercase() {
        #expect(HexText.lowercase([0x00, 0x0F, 0xA5, 0xFF]) == "000fa5ff")
        #expect(HexText.lowercase([UInt8]()) == "")
        let every = (0...255).map { UInt8($0) }
        #expect(HexText.lowercase(every) == every.map { String(format: "%02x", $0) }.joined())
    }
}
