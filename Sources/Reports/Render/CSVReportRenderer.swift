/// RFC 4180 csv: a header of the JSON keys, CRLF line ends, fields quoted when they hold a comma, quote or
/// line break. The totals row comes last and starts with `total`, so scripts can drop it by its first field.
enum CSVReportRenderer {
    static func render(_ table: ReportTable) -> String {
        var lines = [table.columns.map(field).joined(separator: ",")]
        lines += table.rows.map { $0.map(cell).joined(separator: ",") }
        if let totals = table.totals { lines.append(totals.map(cell).joined(separator: ",")) }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Text that users control (an audit row's user agent, a push's data) could start a spreadsheet
    /// formula: such a cell gets a leading apostrophe (OWASP's CSV-injection advice). Numbers stay numbers.
    static func cell(_ value: ReportValue) -> String {
        switch value {
        case .text, .object: field(neutralised(value.text))
        default: field(value.text)
        }
    }

    static func neutralised(_ text: String) -> String {
        guard let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return text }
        return "'" + text
    }

    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
