import PushCore
import Testing

@Suite("Random object ids")
struct RandomIDTests {
    @Test("ids have the asked length, are lower-case hex, and do not repeat", arguments: [1, 8, 16, 17, 24, 40])
    func shape(length: Int) {
        let ids = (0..<2000).map { _ in RandomID.make(length: length) }
        for id in ids {
            #expect(id.count == length)
            #expect(id.allSatisfy { "0123456789abcdef".contains($0) })
        }
        if length >= 16 { #expect(Set(ids).count == ids.count) }
        // Every digit turns up in every position: no position is stuck (a shifted-out word would leave zeros).
        for position in 0..<length {
            let seen = Set(ids.map { $0[$0.index($0.startIndex, offsetBy: position)] })
            #expect(seen.count == 16, "position \(position) took only \(seen.sorted())")
        }
    }
}
