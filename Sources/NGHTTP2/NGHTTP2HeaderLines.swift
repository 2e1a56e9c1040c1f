import HTTPTypes

/// Reading the loop's collected response header lines ("name: value\n") into fields, only when asked.
enum NGHTTP2HeaderLines {
    /// Every line (each ended by a line feed) as a field; lines without a colon, or whose name is not a token,
    /// are dropped; values lose surrounding blanks.
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
            guard let name = HTTPField.Name(String(decoding: lines[start..<colon], as: UTF8.self)) else { continue }
            fields.append(HTTPField(name: name, value: String(decoding: lines[valueStart..<valueEnd], as: UTF8.self)))
        }
        return fields
    }
}
