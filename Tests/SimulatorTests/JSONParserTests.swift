import Testing

@testable import Simulator

@Suite("JSON reader")
struct JSONParserTests {
    @Test("reads nested documents, escapes and numbers as written")
    func readsDocuments() throws {
        let value = try JSONParser.parse(
            #"{"aps":{"alert":"a\"b\u00e9\ud83d\ude00","badge":1.5e2},"list":[true,false,null,-0]}"#)
        #expect(value["aps"]?["alert"]?.stringValue == "a\"bé😀")
        #expect(value["aps"]?["badge"]?.doubleValue == 150)
        #expect(value["list"]?.serialized == "[true,false,null,-0]")
        #expect(value.serialized == #"{"aps":{"alert":"a\"bé😀","badge":1.5e2},"list":[true,false,null,-0]}"#)
    }

    @Test(
        "refuses what RFC 8259 refuses",
        arguments: [
            "", "{", #"{"a":}"#, "[1,]", "01", "1.", #""\x""#, "{\"a\":1} x", "\"\u{01}\"", "tru", #""\ud800""#,
        ]
    )
    func refusesInvalid(text: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(text) }
    }

    @Test("refuses absurd nesting instead of recursing without bound")
    func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(deep) }
    }
}
