import Foundation
import PushCore

// Times PushCore's JSON reader against Foundation's on the documents PushLedger reads most (and, at the end,
// its writer): an installation save body (ingest), a push request body, and a PushTargeted event of 500
// targets (read back by projections and `explain`). Both readers must produce PushCore's `JSON` (integers
// kept apart from doubles), so Foundation's figure includes converting its objects, as a drop-in
// replacement would. Rounds alternate the two readers (A B A B …) and medians are printed, with the ratio
// Foundation / PushCore. At the end, a page of 1,000 targets written by `PushTargeted.encodedText` against
// `json.encoded()`, and a batch row of 1,000 targets read by `PushTarget.list(jsonText:)` against the JSON
// reader and `PushTarget(json:)`.
// Usage: json-reader-bench [ROUNDS (7)]

let rounds = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 7

let installation = Array(
    #"{"deviceType":"ios","deviceToken":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef","channels":["news","sports"],"badge":0,"timeZone":"Asia/Shanghai","installationId":"b5f1c3a2-7d2e-4e61-9c1f-2f0a8f3e9d11"}"#
        .utf8)
let push = Array(
    #"{"where":{"channels":"news","deviceType":{"$in":["ios","android"]}},"data":{"alert":"Breaking: the ledger balances","badge":"Increment","sound":"default","title":"News"},"expiration_interval":86400,"prod":"prod"}"#
        .utf8)
let targeted = Array(
    JSON.object([
        "objectId": "5f0c1a2b3c4d5e6f7a8b9c0d", "batch": 3, "at": "2026-11-25T10:00:00.000Z",
        "targets": .array(
            (0..<500).map { i in
                [
                    "o": .string(String(format: "%024x", i)), "t": "ios", "k": .string(String(format: "%064x", i)),
                    "b": .int(Int64(i % 9)),
                ]
            }),
    ]).encoded().utf8)

/// Foundation's reader as a drop-in: JSONSerialization, then its NSNumber/NSArray/NSDictionary into `JSON`.
func foundationParse(_ bytes: [UInt8]) throws -> JSON {
    func convert(_ value: Any) -> JSON {
        switch value {
        case is NSNull: return .null
        case let s as String: return .string(s)
        case let n as NSNumber:
            if String(cString: n.objCType) == "c" { return .bool(n.boolValue) }
            let d = n.doubleValue
            if d.rounded() == d, abs(d) < 9e15, !String(describing: n).contains(".") { return .int(n.int64Value) }
            return .double(d)
        case let a as [Any]: return .array(a.map(convert))
        case let o as [String: Any]: return .object(o.mapValues(convert))
        default: return .null
        }
    }
    return convert(try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]))
}

/// µs per call of `body`, whose result (a size) is kept so the work cannot be optimised away.
func time(_ iterations: Int, _ body: () throws -> Int) rethrows -> Double {
    let start = ContinuousClock.now
    var sink = 0
    for _ in 0..<iterations { sink &+= try body() }
    let elapsed = ContinuousClock.now - start
    precondition(sink > 0)
    let (s, a) = elapsed.components
    return (Double(s) + Double(a) / 1e18) / Double(iterations) * 1e6
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

var costs: [String: (ours: Double, foundation: Double)] = [:]
print("document            bytes   PushCore µs   Foundation µs   Foundation/PushCore")
for (name, bytes, iterations) in [
    ("installation body", installation, 20_000), ("push body", push, 20_000), ("PushTargeted (500)", targeted, 200),
] {
    let same = try JSON.parse(bytes) == foundationParse(bytes)
    precondition(same, "the two readers disagree on \(name)")
    var ours: [Double] = []
    var theirs: [Double] = []
    for _ in 0..<rounds {
        ours.append(try time(iterations) { try JSON.parse(bytes).objectValue?.count ?? 0 })
        theirs.append(try time(iterations) { try foundationParse(bytes).objectValue?.count ?? 0 })
    }
    let a = median(ours), b = median(theirs)
    costs[name] = (a, b)
    print(
        name.padding(toLength: 18, withPad: " ", startingAt: 0),
        String(format: "%7d %13.2f %15.2f %21.2f", bytes.count, a, b, b / a))
}

// Event payloads are read from `JSON` already in memory (projections get the event's data, not text): what a
// projection pays per PushTargeted page is `PushTargeted(json:)`.
let targetedJSON = try JSON.parse(targeted)
var decoded: [Double] = []
for _ in 0..<rounds {
    decoded.append(
        try time(200) {
            let count = try PushTargeted(json: targetedJSON).targets.count
            precondition(count == 500)
            return count
        })
}
print(String(format: "PushTargeted(json:) of 500 targets: %.2f µs (median of %d rounds)", median(decoded), rounds))
// For scripts/bench-json --with-ingest: the extra cost per save of Foundation's reader.
if let body = costs["installation body"] {
    print(String(format: "extra_us_per_save=%.2f", body.foundation - body.ours))
}
// For --with-fanout: a sender reads its batch row (500 targets) with the reader; per device.
if let page = costs["PushTargeted (500)"] {
    print(String(format: "extra_us_per_push=%.2f", (page.foundation - page.ours) / 500))
}

// The writer, on what the fan-out writes most: a page of 1,000 targets as its `PushTargeted` event's data
// (`PushTargeted.json`, then `encoded()`, as `LedgerTransaction.append` does), against Foundation's
// JSONSerialization writing the same document with sorted keys from the equivalent Foundation objects (their
// construction included, as a drop-in would pay it). Both texts must parse to the same `JSON`.
let page = PushTargeted(
    objectId: "5f0c1a2b3c4d5e6f7a8b9c0d", batch: 3,
    targets: (0..<1000).map { i in
        PushTarget(
            objectId: String(format: "%024x", i), deviceType: "ios", token: String(format: "%064x", i), profile: nil,
            badge: nil)
    }, at: "2026-11-25T10:00:00.000Z")
func foundationWrite(_ page: PushTargeted) throws -> Data {
    let targets: [[String: Any]] = page.targets.map { ["o": $0.objectId, "t": $0.deviceType, "k": $0.token] }
    let document: [String: Any] = ["objectId": page.objectId, "batch": page.batch, "targets": targets, "at": page.at]
    return try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
}
let ourText = try JSON.parse(page.json.encoded())
let foundationText = try JSON.parse(Array(try foundationWrite(page)))
precondition(ourText == foundationText, "the two writers disagree")
precondition(page.encodedText == page.json.encoded(), "encodedText differs from the JSON writer's text")
var written: [Double] = []
var foundationWritten: [Double] = []
var writtenDirectly: [Double] = []
for _ in 0..<rounds {
    written.append(time(100) { page.json.encoded().utf8.count })
    foundationWritten.append(try time(100) { try foundationWrite(page).count })
    writtenDirectly.append(time(100) { page.encodedText.utf8.count })
}
let (w, fw, dw) = (median(written), median(foundationWritten), median(writtenDirectly))
print(
    String(
        format:
            "PushTargeted (1,000) written: PushCore %.1f µs (%.2f µs a target), Foundation %.1f µs; Foundation/PushCore %.2f",
        w, w / 1000, fw, fw / w))
// What the targeting step stores: the same text written straight from the targets.
print(
    String(
        format:
            "PushTargeted (1,000) written by encodedText: %.1f µs (%.2f µs a target); json.encoded() / encodedText %.2f",
        dw, dw / 1000, w / dw))

// A sender's claim reads its batch row's targets: 1,000 of them, as PostgreSQL prints `jsonb` (keys by length,
// then bytes; a space after each colon and comma). Read the general way (the document as `JSON`, then
// `PushTarget(json:)` for each element) and by `PushTarget.list(jsonText:)`, as the claim reads them,
// alternated; both must give the same targets.
let batchRow =
    "["
    + (0..<1000).map { i in
        #"{"b": \#(i % 9), "k": "\#(String(format: "%064x", i))", "o": "\#(String(format: "%024x", i))", "t": "ios"}"#
    }.joined(separator: ", ") + "]"
func throughJSON(_ text: String) throws -> [PushTarget] {
    (try JSON.parse(text).arrayValue ?? []).compactMap(PushTarget.init(json:))
}
let sameTargets = try throughJSON(batchRow) == PushTarget.list(jsonText: batchRow)
precondition(sameTargets, "the two target readers disagree")
var viaJSON: [Double] = []
var direct: [Double] = []
for _ in 0..<rounds {
    viaJSON.append(try time(100) { try throughJSON(batchRow).count })
    direct.append(try time(100) { try PushTarget.list(jsonText: batchRow).count })
}
let (viaJSONMedian, directMedian) = (median(viaJSON), median(direct))
print(
    String(
        format:
            "batch row (1,000 targets, %d bytes) read: through JSON %.1f µs (%.2f µs a target), PushTarget.list %.1f µs (%.2f µs a target); ratio %.2f",
        batchRow.utf8.count, viaJSONMedian, viaJSONMedian / 1000, directMedian, directMedian / 1000,
        viaJSONMedian / directMedian))
