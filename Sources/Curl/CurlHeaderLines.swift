import HTTPTypes

/// Reading received header lines ("name: value", no line ends) without making strings for each of them.
enum CurlHeaderLines {
    private static let contentLengthName = Array("content-length".utf8)

    /// The value of a `content-length` line, nil for any other line or an unreadable value.
    static func contentLength(in line: UnsafeRawBufferPointer) -> Int? {
        let name = contentLengthName
        guard line.count > name.count, line[name.count] == UInt8(ascii: ":") else { return nil }
        for i in 0..<name.count where line[i] | 0x20 != name[i] { return nil }
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        var index = name.count + 1
        while index < line.count, isBlank(line[index]) { index += 1 }
        var value = 0
        var digits = 0
        while index < line.count, digits <= 15, line[index] >= 0x30, line[index] <= 0x39 {
            value = value * 10 + Int(line[index] - 0x30)
            digits += 1
            index += 1
        }
        while index < line.count, isBlank(line[index]) { index += 1 }
        return digits > 0 && digits <= 15 && index == line.count ? value : nil
    }

    /// Every line of `lines` (each ended by a line feed) as a field; lines without a colon or whose name is
    /// not a token are dropped, values lose surrounding blanks.
    static func fields(_ lines: [UInt8]) -> HTTPFields {
        var fields = HTTPFields()
        var start = 0
        while start < lines.count {
            let end = lines[start...].firstIndex(of: 0x0A) ?? lines.count
            defer { start = end + 1 }
            guard let colon = lines[start..<end].firstIndex(of: UInt8(ascii: ":")) else { continue }
            var valueStart = colon + 1
            while valueStart < end, lines[valueStart] == 0x20 || lines[valueStart] == 0x09 { valueStart += 1 }
            var valueEnd = end
            while valueEnd > valueStart, lines[valueEnd - 1] == 0x20 || lines[valueEnd - 1] == 0x09 { valueEnd -= 1 }
            let name = String(decoding: lines[start..<colon], as: UTF8.self)
            // HTTPFields keeps names case-insensitively; a name that is not a token cannot be a real header.
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(
                HTTPField(name: fieldName, value: String(decoding: lines[valueStart..<valueEnd], as: UTF8.self)))
        }
        return fields
    }
}
