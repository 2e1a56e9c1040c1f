import Foundation
import Testing

@testable import Delivery

@Suite("FastUUID")
struct FastUUIDTests {
    @Test("version-4 RFC 4122 UUIDs, all different")
    func versionAndVariant() {
        var seen = Set<UUID>()
        for _ in 0..<10_000 {
            let uuid = FastUUID.make()
            let text = uuid.uuidString
            #expect(Array(text)[14] == "4")
            #expect("89AB".contains(Array(text)[19]))
            seen.insert(uuid)
        }
        #expect(seen.count == 10_000)
    }

    @Test("the string is Foundation's uuidString, spelled by hand")
    func stringMatchesFoundation() {
        for _ in 0..<1_000 {
            let uuid = FastUUID.make()
            #expect(FastUUID.string(uuid) == uuid.uuidString)
        }
        let fixed = UUID(uuidString: "00FF10A0-0B0C-4D0E-8F00-123456789ABC")!
        #expect(FastUUID.string(fixed) == "00FF10A0-0B0C-4D0E-8F00-123456789ABC")
    }
}
