import PushCore
import Testing

/// The one JSON reader of the package (API bodies, event data, the simulator's requests and JWTs).
@Suite("JSON reader")
struct JSONReaderTests {
    @Test("reads nested documents, escapes and numbers; integers stay integers")
    func readsDocuments() throws {
        let value = try JSON.parse(
            #"{"aps":{"alert":"a\"b\u00e9\ud83d\ude00","badge":1.5e2},"list":[true,false,null,-0,7]}"#)
        #expect(value["aps"]?["alert"]?.stringValue == "a\"bé😀")
        #expect(value["aps"]?["badge"]?.doubleValue == 150)
        #expect(value["list"]?.arrayValue?.last == .int(7))
        #expect(value["list"]?.encoded() == "[true,false,null,0,7]")
        // Written back and read again, strings survive exactly (numbers may change spelling: 1.5e2 → 150).
        #expect(try JSON.parse(value.encoded())["aps"]?["alert"] == value["aps"]?["alert"])
    }

    @Test(
        "refuses what RFC 8259 refuses",
        arguments: [
            "", "{", #"{"a":}"#, "[1,]", "01", "1.", #""\x""#, "{\"a\":1} x", "\"\u{01}\"", "tru", #""\ud800""#,
        ]
    )
    func refusesInvalid(text: String) {
        #expect(throws: MalformedJSON.self) { try JSON.parse(text) }
    }

    @Test("refuses absurd nesting instead of recursing without bound")
    func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
        #expect(throws: MalformedJSON.self) { try JSON.parse(deep) }
    }
}
