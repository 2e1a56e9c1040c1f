/// RFC 4180 csv: a header of the JSON keys, CRLF line ends, fields quoted when they hold a comma, quote or
/// line break. The totals row comes last and starts with `total`, so scripts can drop it by its first field.
enum CSVReportRenderer {
    static func render(_ table: ReportTable) -> String {
        var lines = [table.columns.map(field).joined(separator: ",")]
        lines += table.rows.map { $0.map { field($0.text) }.joined(separator: ",") }
        if let totals = table.totals { lines.append(totals.map { field($0.text) }.joined(separator: ",")) }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
