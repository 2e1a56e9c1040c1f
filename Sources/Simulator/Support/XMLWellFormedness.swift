/// Just enough of XML 1.0 to tell whether a WNS payload is one well-formed element: tags balance, attribute
/// values are quoted, and `&` only starts a known or numeric entity. No DTDs, comments or CDATA, which WNS
/// payloads never need. Returns the root element's name, nil when malformed.
enum XMLWellFormedness {
    static func rootElement(_ text: String) -> String? {
        var bytes = Array(text.utf8)[...]
        skipSpace(&bytes)
        if bytes.starts(with: Array("<?xml".utf8)) {
            guard let end = find(Array("?>".utf8), in: bytes) else { return nil }
            bytes = bytes[(end + 2)...]
        }
        var stack: [ArraySlice<UInt8>] = []
        var root: String?
        while let first = bytes.first {
            if first != UInt8(ascii: "<") {
                let next = bytes.firstIndex(of: UInt8(ascii: "<")) ?? bytes.endIndex
                let segment = bytes[..<next]
                // Outside the root element only white space may stand.
                guard stack.isEmpty ? segment.allSatisfy(isSpace) : entitiesAreValid(segment) else { return nil }
                bytes = bytes[next...]
                continue
            }
            guard root == nil || !stack.isEmpty else { return nil }  // one root element only
            bytes = bytes.dropFirst()
            let closing = bytes.first == UInt8(ascii: "/")
            if closing { bytes = bytes.dropFirst() }
            let name = bytes.prefix { isNameByte($0) }
            guard !name.isEmpty else { return nil }
            bytes = bytes.dropFirst(name.count)
            if closing {
                skipSpace(&bytes)
                guard bytes.first == UInt8(ascii: ">"), stack.popLast() == name else { return nil }
                bytes = bytes.dropFirst()
                continue
            }
            guard let selfClosing = skipAttributes(&bytes) else { return nil }
            if root == nil { root = String(decoding: name, as: UTF8.self) }
            if !selfClosing { stack.append(name) }
        }
        return stack.isEmpty ? root : nil
    }

    /// Reads `name="value"` pairs up to `>` or `/>`; true for `/>`, nil when malformed.
    private static func skipAttributes(_ bytes: inout ArraySlice<UInt8>) -> Bool? {
        while true {
            let hadSpace = bytes.first.map(isSpace) ?? false
            skipSpace(&bytes)
            if bytes.starts(with: [UInt8(ascii: "/"), UInt8(ascii: ">")]) {
                bytes = bytes.dropFirst(2)
                return true
            }
            if bytes.first == UInt8(ascii: ">") {
                bytes = bytes.dropFirst()
                return false
            }
            let name = bytes.prefix { isNameByte($0) }
            guard hadSpace, !name.isEmpty else { return nil }
            bytes = bytes.dropFirst(name.count)
            skipSpace(&bytes)
            guard bytes.first == UInt8(ascii: "=") else { return nil }
            bytes = bytes.dropFirst()
            skipSpace(&bytes)
            guard let quote = bytes.first, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return nil }
            bytes = bytes.dropFirst()
            guard let end = bytes.firstIndex(of: quote) else { return nil }
            let value = bytes[..<end]
            guard !value.contains(UInt8(ascii: "<")), entitiesAreValid(value) else { return nil }
            bytes = bytes[(end + 1)...]
        }
    }

    private static func entitiesAreValid(_ text: ArraySlice<UInt8>) -> Bool {
        var rest = text
        while let amp = rest.firstIndex(of: UInt8(ascii: "&")) {
            guard let semicolon = rest[amp...].firstIndex(of: UInt8(ascii: ";")) else { return false }
            let entity = String(decoding: rest[(amp + 1)..<semicolon], as: UTF8.self)
            let named = ["amp", "lt", "gt", "quot", "apos"].contains(entity)
            let decimal = entity.hasPrefix("#") && entity.count > 1 && entity.dropFirst().allSatisfy(\.isNumber)
            let hex = entity.hasPrefix("#x") && entity.count > 2 && entity.dropFirst(2).allSatisfy(\.isHexDigit)
            guard named || decimal || hex else { return false }
            rest = rest[(semicolon + 1)...]
        }
        return true
    }

    private static func find(_ needle: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
        var index = bytes.startIndex
        while index + needle.count <= bytes.endIndex {
            if bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private static func skipSpace(_ bytes: inout ArraySlice<UInt8>) {
        bytes = bytes.drop { isSpace($0) }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: ":"):
            return true
        default:
            return byte >= 0x80
        }
    }
}
