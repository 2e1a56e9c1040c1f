/// A strict RFC 8259 reader over raw bytes.
///
/// Written by hand rather than using Foundation's `JSONSerialization` because every simulated APNs request is parsed
/// and the load test sends a million of them; this reader allocates nothing for short keys and never bridges.
struct JSONParser {
    /// Why a document was refused; the simulator maps any of them to the provider's "bad payload" answer.
    struct Failure: Error, CustomStringConvertible {
        var offset: Int
        var message: String
        var description: String { "invalid JSON at byte \(self.offset): \(self.message)" }
    }

    private static let maximumDepth = 64

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    static func parse(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("trailing characters") }
        return value
    }

    static func parse(_ text: String) throws(Failure) -> JSONValue {
        var copy = text
        let result: Result<JSONValue, Failure> = copy.withUTF8 { buffer in
            do throws(Failure) {
                return .success(try JSONParser.parse(UnsafeRawBufferPointer(buffer)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private func failure(_ message: String) -> Failure {
        Failure(offset: self.index, message: message)
    }

    private mutating func skipWhitespace() {
        while self.index < self.bytes.count {
            switch self.bytes[self.index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                self.index += 1
            default:
                return
            }
        }
    }

    private mutating func parseValue() throws(Failure) -> JSONValue {
        guard self.index < self.bytes.count else { throw self.failure("unexpected end") }
        switch self.bytes[self.index] {
        case UInt8(ascii: "{"):
            return try self.parseObject()
        case UInt8(ascii: "["):
            return try self.parseArray()
        case UInt8(ascii: "\""):
            return .string(try self.parseString())
        case UInt8(ascii: "t"):
            try self.expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try self.expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try self.expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try self.parseNumber()
        default:
            throw self.failure("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard self.index + count <= self.bytes.count else { throw self.failure("unexpected end") }
        for offset in 0..<count where self.bytes[self.index + offset] != literal.utf8Start[offset] {
            throw self.failure("invalid literal")
        }
        self.index += count
    }

    private mutating func enter() throws(Failure) {
        self.depth += 1
        guard self.depth <= Self.maximumDepth else { throw self.failure("nesting too deep") }
    }

    private mutating func parseObject() throws(Failure) -> JSONValue {
        try self.enter()
        self.index += 1
        var members: [(key: String, value: JSONValue)] = []
        self.skipWhitespace()
        if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "}") {
            self.index += 1
            self.depth -= 1
            return .object(members)
        }
        while true {
            self.skipWhitespace()
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\"") else {
                throw self.failure("expected a member name")
            }
            let key = try self.parseString()
            self.skipWhitespace()
            guard self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ":") else {
                throw self.failure("expected ':'")
            }
            self.index += 1
            self.skipWhitespace()
            members.append((key, try self.parseValue()))
            self.skipWhitespace()
            guard self.index < self.bytes.count else { throw self.failure("unexpected end") }
            let separator = self.bytes[self.index]
            self.index += 1
            if separator == UInt8(ascii: "}") { break }
            guard separator == UInt8(ascii: ",") else { throw self.failure("expected ',' or '}'") }
        }
        self.depth -= 1
        return .object(members)
    }

    private mutating func parseArray() throws(Failure) -> JSONValue {
        try self.enter()
        self.index += 1
        var elements: [JSONValue] = []
        self.skipWhitespace()
        if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "]") {
            self.index += 1
            self.depth -= 1
            return .array(elements)
        }
        while true {
            self.skipWhitespace()
            elements.append(try self.parseValue())
            self.skipWhitespace()
            guard self.index < self.bytes.count else { throw self.failure("unexpected end") }
            let separator = self.bytes[self.index]
            self.index += 1
            if separator == UInt8(ascii: "]") { break }
            guard separator == UInt8(ascii: ",") else { throw self.failure("expected ',' or ']'") }
        }
        self.depth -= 1
        return .array(elements)
    }

    private mutating func parseNumber() throws(Failure) -> JSONValue {
        let start = self.index
        if self.bytes[self.index] == UInt8(ascii: "-") { self.index += 1 }
        guard self.index < self.bytes.count else { throw self.failure("unexpected end") }
        if self.bytes[self.index] == UInt8(ascii: "0") {
            self.index += 1
        } else {
            guard self.consumeDigits() > 0 else { throw self.failure("expected a digit") }
        }
        if self.index < self.bytes.count, self.bytes[self.index] == UInt8(ascii: ".") {
            self.index += 1
            guard self.consumeDigits() > 0 else { throw self.failure("expected a digit") }
        }
        if self.index < self.bytes.count, self.bytes[self.index] | 0x20 == UInt8(ascii: "e") {
            self.index += 1
            if self.index < self.bytes.count,
                self.bytes[self.index] == UInt8(ascii: "+") || self.bytes[self.index] == UInt8(ascii: "-")
            {
                self.index += 1
            }
            guard self.consumeDigits() > 0 else { throw self.failure("expected a digit") }
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: self.bytes[start..<self.index]), as: UTF8.self)
        return .number(text)
    }

    private mutating func consumeDigits() -> Int {
        let start = self.index
        while self.index < self.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self.bytes[self.index]) {
            self.index += 1
        }
        return self.index - start
    }

    private mutating func parseString() throws(Failure) -> String {
        self.index += 1
        let start = self.index
        // Fast path: most strings have no escapes, so they are decoded straight from the input bytes.
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeRawBufferPointer(rebasing: self.bytes[start..<self.index])
                self.index += 1
                return try self.decodeUTF8(slice)
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw self.failure("control character in string") }
            self.index += 1
        }
        var scalars = Array(UnsafeRawBufferPointer(rebasing: self.bytes[start..<self.index]))
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            self.index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: scalars, as: UTF8.self) else {
                    throw self.failure("invalid UTF-8")
                }
                return string
            case UInt8(ascii: "\\"):
                try self.appendEscape(to: &scalars)
            case 0..<0x20:
                throw self.failure("control character in string")
            default:
                scalars.append(byte)
            }
        }
        throw self.failure("unterminated string")
    }

    private func decodeUTF8(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> String {
        guard let string = String(validating: bytes, as: UTF8.self) else { throw self.failure("invalid UTF-8") }
        return string
    }

    private mutating func appendEscape(to output: inout [UInt8]) throws(Failure) {
        guard self.index < self.bytes.count else { throw self.failure("unexpected end") }
        let byte = self.bytes[self.index]
        self.index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(byte)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try self.readHex4())
            if (0xD800..<0xDC00).contains(scalar) {
                guard self.index + 1 < self.bytes.count, self.bytes[self.index] == UInt8(ascii: "\\"),
                    self.bytes[self.index + 1] == UInt8(ascii: "u")
                else { throw self.failure("lone surrogate") }
                self.index += 2
                let low = UInt32(try self.readHex4())
                guard (0xDC00..<0xE000).contains(low) else { throw self.failure("lone surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw self.failure("lone surrogate") }
            output.append(contentsOf: String(Character(unicode)).utf8)
        default:
            throw self.failure("invalid escape")
        }
    }

    private mutating func readHex4() throws(Failure) -> UInt16 {
        guard self.index + 4 <= self.bytes.count else { throw self.failure("unexpected end") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let digit = HexDigits.value(of: self.bytes[self.index]) else {
                throw self.failure("invalid \\u escape")
            }
            value = value << 4 | UInt16(digit)
            self.index += 1
        }
        return value
    }
}
