import PushCore
import Testing

/// A page of targets as text, both ways, without a dictionary per device: `PushTarget.list(jsonText:)`, the
/// reader a sender's batch claim uses, reads the same targets as the JSON reader followed by
/// `PushTarget(json:)`; `PushTargeted.encodedText`, which the targeting step stores, writes the same text as
/// `json.encoded()`.
@Suite("Target page text")
struct PushTargetTextTests {
    /// What the claim did before: the whole document as `JSON`, then each element mapped.
    static func throughJSON(_ text: String) throws -> [PushTarget] {
        (try JSON.parse(text).arrayValue ?? []).compactMap(PushTarget.init(json:))
    }

    @Test("reads a batch row as PostgreSQL prints jsonb")
    func readsJSONBText() throws {
        let text = """
            [{"b": 3, "k": "0a1b", "o": "i1", "t": "ios"}, {"k": "fcm-reg", "o": "i2", "p": "dev", "t": "android"}, \
            {"k": "", "o": "i3", "t": "ios"}]
            """
        let expected = [
            PushTarget(objectId: "i1", deviceType: "ios", token: "0a1b", profile: nil, badge: 3),
            PushTarget(objectId: "i2", deviceType: "android", token: "fcm-reg", profile: "dev", badge: nil),
            PushTarget(objectId: "i3", deviceType: "ios", token: "", profile: nil, badge: nil),
        ]
        #expect(try PushTarget.list(jsonText: text) == expected)
    }

    @Test(
        "agrees with the JSON reader and PushTarget(json:) on unusual documents",
        arguments: [
            "[]", " [ ] ", "{}", "null", "7", #""text""#, "[1, null, [], {}, \"x\"]",
            #"[{"o":"a","t":"ios","k":"t1","b":2.0}]"#,  // an integral double is a badge, as intValue reads it
            #"[{"o":"a","t":"ios","k":"t1","b":2.5}]"#,  // a fractional one is none
            #"[{"o":"a","t":"ios","k":"t1","b":"2"}]"#,  // a string badge is none
            #"[{"o":"a","t":"ios","k":"t1","p":7}]"#,  // a profile that is not a string is none
            #"[{"o":"a","t":"ios"}]"#,  // no token: not a target
            #"[{"o":1,"t":"ios","k":"t1"}]"#,  // an objectId that is not a string: not a target
            #"[{"o":"a","t":"ios","k":"t1","o":"b"}]"#,  // a later duplicate wins
            #"[{"\u006f":"a","t":"ios","k":"t1"}]"#,  // an escaped key is the same key
            #"[{"objectId":"a","o":"b","t":"ios","k":"t1","x":{"y":[1,2]},"":"empty key"}]"#,
            #"[{"o":"a\"b\u00e9\ud83d\ude00","t":"ios","k":"t\\1"}]"#,
            "[\n\t{ \"o\" : \"a\" , \"t\" : \"ios\" , \"k\" : \"t1\" }\r\n]",
        ]
    )
    func agreesWithJSONReader(text: String) throws {
        #expect(try PushTarget.list(jsonText: text) == (try Self.throughJSON(text)))
    }

    @Test(
        "refuses what the JSON reader refuses",
        arguments: [
            "", "[", "[{", #"[{"o":"a"]"#, #"[{"o" "a"}]"#, #"[{"o":"a",}]"#, #"[{"o":"a"},]"#, "[1 2]",
            #"[{"o":"a"}] x"#, "[{\"o\":\"a\u{01}\"}]", "[{\"\u{01}\":1}]", #"[{"\u0000":1}]"#, #"[{o:"a"}]"#,
            #"[{"o":tru}]"#, #"{"a":1} x"#, #"[{""":1}]"#, #"[{"":1,""":2}]"#,
        ]
    )
    func refusesInvalid(text: String) {
        #expect(throws: MalformedJSON.self) { try Self.throughJSON(text) }
        #expect(throws: MalformedJSON.self) { try PushTarget.list(jsonText: text) }
    }

    @Test("refuses absurd nesting inside a target, as the JSON reader does")
    func refusesDeepNesting() {
        let deep =
            #"[{"o":"a","t":"ios","k":"t","x":"# + String(repeating: "[", count: 200)
            + String(repeating: "]", count: 200) + "}]"
        #expect(throws: MalformedJSON.self) { try Self.throughJSON(deep) }
        #expect(throws: MalformedJSON.self) { try PushTarget.list(jsonText: deep) }
    }

    @Test("agrees with the JSON reader on generated pages, written by JSON's own writer")
    func agreesOnGeneratedPages() throws {
        var random = Generated(seed: 18)
        func next() -> UInt64 { random.next() }
        func text(_ n: Int) -> String { random.text(n) }
        var targets = 0
        for _ in 0..<200 {
            var elements: [JSON] = []
            for _ in 0..<Int(next() % 20) {
                var o: [String: JSON] = [:]
                for key in ["o", "t", "k", "p", "b", "v", "i", "c", "z"] where next() % 5 != 0 {
                    switch next() % 6 {
                    case 0: o[key] = .int(Int64(bitPattern: next()) % 1000)
                    case 1: o[key] = .null
                    default: o[key] = .string(text(Int(next() % 12)))
                    }
                }
                elements.append(next() % 10 == 0 ? .array([.object(o)]) : .object(o))
            }
            let page = JSON.array(elements).encoded()
            let read = try PushTarget.list(jsonText: page)
            #expect(read == (try Self.throughJSON(page)), "\(page)")
            targets += read.count
        }
        #expect(targets > 200, "the generated pages held only \(targets) targets")
    }

    @Test("writes a page as JSON's writer does, keys sorted, empty profiles and nil badges left out")
    func writesAPage() {
        let page = PushTargeted(
            objectId: "p1", batch: 2,
            targets: [
                PushTarget(objectId: "i1", deviceType: "ios", token: "0a", profile: nil, badge: 3),
                PushTarget(objectId: "i\"2", deviceType: "android", token: "r\\g", profile: "dev", badge: nil),
                PushTarget(objectId: "i3", deviceType: "ios", token: "", profile: "", badge: -1),
                PushTarget(
                    objectId: "i4", deviceType: "ios", token: "0b", profile: nil, badge: nil, apnsTeam: "T1",
                    apnsTopic: "com.a"),
            ], at: "2026-11-27T10:00:00.000Z")
        let expected =
            #"{"at":"2026-11-27T10:00:00.000Z","batch":2,"objectId":"p1","targets":["#
            + #"{"b":3,"k":"0a","o":"i1","t":"ios"},{"k":"r\\g","o":"i\"2","p":"dev","t":"android"},"#
            + #"{"b":-1,"k":"","o":"i3","t":"ios"},{"c":"com.a","i":"T1","k":"0b","o":"i4","t":"ios"}]}"#
        #expect(page.encodedText == expected)
        #expect(page.json.encoded() == expected)
        #expect(
            PushTargeted(objectId: "p", batch: 0, targets: [], at: "t").encodedText
                == #"{"at":"t","batch":0,"objectId":"p","targets":[]}"#)
    }

    @Test("writes generated pages exactly as JSON's writer does, and they read back")
    func writesGeneratedPages() throws {
        var random = Generated(seed: 27)
        func next() -> UInt64 { random.next() }
        func text(_ n: Int) -> String { random.text(n) }
        for _ in 0..<200 {
            let targets = (0..<Int(next() % 30)).map { _ in
                PushTarget(
                    objectId: text(Int(next() % 30)), deviceType: text(Int(next() % 8)), token: text(Int(next() % 70)),
                    profile: next() % 3 == 0 ? nil : text(Int(next() % 4)),
                    badge: next() % 2 == 0
                        ? nil : Int64(bitPattern: next() &* 0x9E37_79B9_7F4A_7C15) >> Int(next() % 64),
                    vendor: next() % 3 == 0 ? nil : text(Int(next() % 4)),
                    apnsTeam: next() % 3 == 0 ? nil : text(Int(next() % 4)),
                    apnsTopic: next() % 3 == 0 ? nil : text(Int(next() % 4)))
            }
            let page = PushTargeted(
                objectId: text(24), batch: Int64(next() % 5000), targets: targets, at: text(Int(next() % 30)))
            #expect(page.encodedText == page.json.encoded())
            #expect(
                try PushTargeted(json: JSON.parse(page.encodedText)).targets
                    == targets.map { target in
                        var read = target
                        // An empty profile, vendor, team or topic is not written.
                        if read.profile == "" { read.profile = nil }
                        if read.vendor == "" { read.vendor = nil }
                        if read.apnsTeam == "" { read.apnsTeam = nil }
                        if read.apnsTopic == "" { read.apnsTopic = nil }
                        return read
                    })
        }
    }

    @Test("the counted form names the push and the number of targets, as counted reads it")
    func countedForm() throws {
        let targets = (0..<7).map {
            PushTarget(objectId: "i\($0)", deviceType: "ios", token: "t", profile: nil, badge: nil)
        }
        let page = PushTargeted(objectId: "p9", batch: 4, targets: targets, at: "2026-11-27T10:00:00.000Z")
        let counted = try PushTargeted.counted(page.countedJSON)
        #expect(counted.objectId == "p9" && counted.devices == 7)
        #expect(page.countedJSON["targets"] == nil)
        #expect(page.countedJSON["batch"] == .int(4) && page.countedJSON["at"] == .string("2026-11-27T10:00:00.000Z"))
    }
}

/// Knuth's MMIX linear congruential generator, its high bits: deterministic, so a failing document can be
/// made again. `text` draws from characters a writer must escape as well as plain and multi-byte ones.
struct Generated {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    static let alphabet = Array("abcXYZ09-_\"\\/é😀\n\t\u{01}\u{7f} ")

    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }

    mutating func text(_ count: Int) -> String {
        String((0..<count).map { _ in Self.alphabet[Int(next() % UInt64(Self.alphabet.count))] })
    }
}
