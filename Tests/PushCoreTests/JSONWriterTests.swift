import Foundation
import Testing

@testable import PushCore

@Suite("JSON writer")
struct JSONWriterTests {
    @Test("escapes quotes, backslashes and control characters; copies other text as it is")
    func escapes() {
        let text = JSON.string("a\"b\\c\nd\re\tf\u{01}g\u{1F}h\u{7F}é😀").encoded()
        #expect(text == #""a\"b\\c\nd\re\tf\u0001g\u001fh"# + "\u{7F}é😀\"")
        #expect(JSON.string("").encoded() == #""""#)
    }

    @Test("integers in full, whole doubles as integers, other doubles as Swift prints them")
    func numbers() {
        #expect(JSON.int(0).encoded() == "0")
        #expect(JSON.int(-7).encoded() == "-7")
        #expect(JSON.int(.max).encoded() == "9223372036854775807")
        #expect(JSON.int(.min).encoded() == "-9223372036854775808")
        #expect(JSON.double(42).encoded() == "42")
        #expect(JSON.double(-0.5).encoded() == "-0.5")
        #expect(JSON.double(.infinity).encoded() == "null")
        #expect(JSON.array([.null, .bool(true), .bool(false)]).encoded() == "[null,true,false]")
    }

    @Test("object keys sorted, small objects and large ones alike")
    func sortedKeys() {
        #expect(JSON.object(["k": "1", "b": 2, "o": [:]]).encoded() == #"{"b":2,"k":"1","o":{}}"#)
        let keys = (0..<40).map { String(format: "key%02d", ($0 * 7) % 40) }
        let large = JSON.object(Dictionary(uniqueKeysWithValues: keys.map { ($0, JSON.int(1)) }))
        let expected = "{" + (0..<40).map { String(format: "\"key%02d\":1", $0) }.joined(separator: ",") + "}"
        #expect(large.encoded() == expected)
        #expect(large.encodedBytes() == Array(expected.utf8))
    }

    /// Random documents read back by Foundation's reader give the same values.
    @Test("what it writes, Foundation reads back as the same document")
    func roundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "\"", "\\", "\n", "\u{0}", "\u{1B}", "é", "😀", "key", " "]
        func string() -> String {
            (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement()! }.joined()
        }
        func value(_ depth: Int) -> JSON {
            switch Int.random(in: 0..<(depth > 2 ? 4 : 6), using: &generator) {
            case 0: return .int(Int64.random(in: .min ... .max, using: &generator))
            case 1: return .string(string())
            case 2: return .bool(Bool.random(using: &generator))
            case 3: return .null
            case 4: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in value(depth + 1) })
            default:
                var fields: [String: JSON] = [:]
                for _ in 0..<Int.random(in: 0...20, using: &generator) { fields[string()] = value(depth + 1) }
                return .object(fields)
            }
        }
        func foundation(_ any: Any) -> JSON {
            switch any {
            case is NSNull: return .null
            case let s as String: return .string(s)
            case let n as NSNumber:
                if String(cString: n.objCType) == "c" { return .bool(n.boolValue) }
                return .int(n.int64Value)
            case let a as [Any]: return .array(a.map(foundation))
            case let o as [String: Any]: return .object(o.mapValues(foundation))
            default: return .string("unexpected")
            }
        }
        for _ in 0..<300 {
            let document = JSON.object(["v": value(0)])
            let read = try JSONSerialization.jsonObject(with: Data(document.encodedBytes()))
            #expect(foundation(read) == document)
        }
    }
}
