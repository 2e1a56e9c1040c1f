import Foundation

/// Why a body could not be read as JSON (LeanCloud code 107).
public struct MalformedJSON: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension JSON {
    /// Parses UTF-8 JSON text. Integers that fit in 64 bits stay integers.
    public static func parse(_ bytes: some Collection<UInt8>) throws(MalformedJSON) -> JSON {
        var parser = JSONParser(Array(bytes))
        do {
            return try parser.parseDocument()
        } catch {
            throw error
        }
    }

    public static func parse(_ text: String) throws(MalformedJSON) -> JSON {
        try parse(Array(text.utf8))
    }

    /// Compact JSON text with sorted object keys.
    public func encoded() -> String {
        String(decoding: encodedBytes(), as: UTF8.self)
    }

    /// `encoded()` as UTF-8 bytes. Written into one byte buffer: appending to a `String` piece by piece cost
    /// about as much again (a `PushTargeted` page of 1,000 targets is written once per page, `bench-json`).
    public func encodedBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(to: &out)
        return out
    }

    func write(to out: inout [UInt8]) {
        switch self {
        case .null: JSON.append("null", to: &out)
        case .bool(let b): JSON.append(b ? "true" : "false", to: &out)
        case .int(let i): JSON.writeInteger(i, to: &out)
        case .double(let d):
            if d.isFinite {
                if d.rounded() == d && abs(d) < 1e15 {
                    JSON.writeInteger(Int64(d), to: &out)
                } else {
                    out.append(contentsOf: "\(d)".utf8)
                }
            } else {
                JSON.append("null", to: &out)
            }
        case .string(let s): JSON.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            JSON.withSortedKeys(of: fields) { keys in
                for (i, key) in keys.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    JSON.writeString(key, to: &out)
                    out.append(UInt8(ascii: ":"))
                    fields[key]!.write(to: &out)
                }
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Runs `body` with the keys of `fields` in order; a small object's are sorted on the stack instead of in a
    /// new array (targets, installations and events are objects of a few keys).
    private static func withSortedKeys(of fields: [String: JSON], _ body: (UnsafeMutableBufferPointer<String>) -> Void)
    {
        guard fields.count <= 16 else {
            var keys = fields.keys.sorted()
            keys.withUnsafeMutableBufferPointer { body($0) }
            return
        }
        withUnsafeTemporaryAllocation(of: String.self, capacity: fields.count) { buffer in
            var keys = buffer
            var count = 0
            for key in fields.keys {
                (keys.baseAddress! + count).initialize(to: key)
                count += 1
            }
            keys.sort()
            body(keys)
            keys.baseAddress!.deinitialize(count: count)
        }
    }

    private static func append(_ literal: StaticString, to out: inout [UInt8]) {
        literal.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// Decimal digits without an intermediate `String`.
    static func writeInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // 19 digits at most (Int64.min's magnitude).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: digits[start...])
        }
    }

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            // Most strings (tokens, ids, keys) need no escaping: append them whole.
            guard bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                out.append(contentsOf: bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): JSON.append("\\\"", to: &out)
                case UInt8(ascii: "\\"): JSON.append("\\\\", to: &out)
                case UInt8(ascii: "\n"): JSON.append("\\n", to: &out)
                case UInt8(ascii: "\r"): JSON.append("\\r", to: &out)
                case UInt8(ascii: "\t"): JSON.append("\\t", to: &out)
                case ..<0x20:
                    let hex: StaticString = "0123456789abcdef"
                    JSON.append("\\u00", to: &out)
                    out.append(hex.utf8Start[Int(byte >> 4)])
                    out.append(hex.utf8Start[Int(byte & 0x0F)])
                // Bytes of multi-byte characters are copied as they are: the text is UTF-8 already.
                default: out.append(byte)
                }
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSON: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? container.decode(Int64.self) {
            self = .int(i)
        } else if let d = try? container.decode(Double.self) {
            self = .double(d)
        } else if let s = try? container.decode(String.self) {
            self = .string(s)
        } else if let a = try? container.decode([JSON].self) {
            self = .array(a)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let b): try container.encode(b)
        case .int(let i): try container.encode(i)
        case .double(let d): try container.encode(d)
        case .string(let s): try container.encode(s)
        case .array(let a): try container.encode(a)
        case .object(let o): try container.encode(o)
        }
    }
}

/// A small strict RFC 8259 parser: Foundation's JSONSerialization loses the integer/double distinction.
struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() throws(MalformedJSON) -> JSON {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw MalformedJSON("unexpected text after the JSON value") }
        return value
    }

    mutating func skipWhitespace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D
                || bytes[index] == 0x09
        {
            index += 1
        }
    }

    mutating func parseValue() throws(MalformedJSON) -> JSON {
        guard index < bytes.count else { throw MalformedJSON("unexpected end of JSON") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        default: return try parseNumber()
        }
    }

    private mutating func expect(_ word: StaticString) throws(MalformedJSON) {
        let w = word.utf8Start
        for i in 0..<word.utf8CodeUnitCount {
            guard index < bytes.count, bytes[index] == w[i] else { throw MalformedJSON("invalid literal") }
            index += 1
        }
    }

    mutating func enter() throws(MalformedJSON) {
        depth += 1
        if depth > 128 { throw MalformedJSON("JSON nested too deeply") }
    }

    private mutating func parseObject() throws(MalformedJSON) -> JSON {
        var fields: [String: JSON] = [:]
        try readObject(key: { parser throws(MalformedJSON) in try parser.parseString() }) {
            parser, key throws(MalformedJSON) in fields[key] = try parser.parseValue()
        }
        return .object(fields)
    }

    private mutating func parseArray() throws(MalformedJSON) -> JSON {
        var items: [JSON] = []
        try readArray { parser throws(MalformedJSON) in items.append(try parser.parseValue()) }
        return .array(items)
    }

    /// Reads the object at `index` (its `{`) up to its `}`: each member's key with `readKey` (called at the key's
    /// opening quote), then its value with `readValue` (called at the value). Commas, colons, the closing brace
    /// and the nesting depth are checked here, for `JSON`'s own objects and for readers that take only a few
    /// fields (`PushTarget.list(jsonText:)`).
    @inline(__always)
    mutating func readObject<Key>(
        key readKey: (inout JSONParser) throws(MalformedJSON) -> Key,
        value readValue: (inout JSONParser, Key) throws(MalformedJSON) -> Void
    ) throws(MalformedJSON) {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw MalformedJSON("expected a string key")
            }
            let key = try readKey(&self)
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw MalformedJSON("expected ':'") }
            index += 1
            skipWhitespace()
            try readValue(&self, key)
            guard try endOfMember(closedBy: UInt8(ascii: "}")) else { continue }
            return
        }
    }

    /// Reads the array at `index` (its `[`) up to its `]`, calling `readElement` at each element; commas, the
    /// closing bracket and the nesting depth are checked here.
    @inline(__always)
    mutating func readArray(_ readElement: (inout JSONParser) throws(MalformedJSON) -> Void) throws(MalformedJSON) {
        try enter()
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            try readElement(&self)
            guard try endOfMember(closedBy: UInt8(ascii: "]")) else { continue }
            return
        }
    }

    /// After an object member or an array element: true at the closing `close` (consumed), false at a comma
    /// (consumed: another member follows), an error otherwise.
    private mutating func endOfMember(closedBy close: UInt8) throws(MalformedJSON) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw MalformedJSON("unexpected end of JSON") }
        index += 1
        if bytes[index - 1] == UInt8(ascii: ",") { return false }
        if bytes[index - 1] == close { return true }
        throw MalformedJSON(close == UInt8(ascii: "}") ? "expected ',' or '}'" : "expected ',' or ']'")
    }

    mutating func parseString() throws(MalformedJSON) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var start = index
        var plain = true
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                if plain {
                    let s = String(decoding: bytes[start..<index], as: UTF8.self)
                    index += 1
                    return s
                }
                scalars.append(contentsOf: String(decoding: bytes[start..<index], as: UTF8.self).unicodeScalars)
                index += 1
                return String(scalars)
            }
            if b < 0x20 { throw MalformedJSON("control character in string") }
            if b == UInt8(ascii: "\\") {
                plain = false
                scalars.append(contentsOf: String(decoding: bytes[start..<index], as: UTF8.self).unicodeScalars)
                index += 1
                guard index < bytes.count else { break }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw MalformedJSON("unpaired surrogate") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw MalformedJSON("unpaired surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw MalformedJSON("invalid unicode escape") }
                    // PostgreSQL's text and jsonb cannot hold NUL: refused here, at the edge, for every input.
                    guard code != 0 else { throw MalformedJSON("strings cannot contain the NUL character (\\u0000)") }
                    scalars.append(scalar)
                default: throw MalformedJSON("invalid escape")
                }
                start = index
                continue
            }
            index += 1
        }
        throw MalformedJSON("unterminated string")
    }

    private mutating func parseHex4() throws(MalformedJSON) -> UInt32 {
        guard index + 4 <= bytes.count else { throw MalformedJSON("invalid unicode escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            index += 1
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw MalformedJSON("invalid unicode escape")
            }
            value = value * 16 + digit
        }
        return value
    }

    private mutating func parseNumber() throws(MalformedJSON) -> JSON {
        let start = index
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
            throw MalformedJSON("invalid value")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw MalformedJSON("invalid number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw MalformedJSON("invalid number") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let i = Int64(text) { return .int(i) }
        // 1e400 would become infinity, which JSON (and jsonb) cannot spell.
        guard let d = Double(text), d.isFinite else { throw MalformedJSON("number out of range: \(text.prefix(40))") }
        return .double(d)
    }
}
