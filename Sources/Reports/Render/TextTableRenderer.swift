/// Plain-text columns for a terminal: numbers right-aligned, text left-aligned, totals under a rule.
enum TextTableRenderer {
    static func render(_ table: ReportTable) -> String {
        let header = table.columns.map { ReportValue.text($0) }
        let body = table.rows + (table.totals.map { [$0] } ?? [])
        let widths = table.columns.indices.map { i in ([header] + body).map { $0[i].text.count }.max() ?? 0 }
        func line(_ cells: [ReportValue]) -> String {
            zip(cells, widths).map { cell, width in
                let pad = String(repeating: " ", count: width - cell.text.count)
                return cell.isNumeric ? pad + cell.text : cell.text + pad
            }
            .joined(separator: "  ").trimmingTrailingSpaces()
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        var lines = [line(header), rule] + table.rows.map(line)
        if let totals = table.totals { lines += [rule, line(totals)] }
        if table.rows.isEmpty { lines.append("(no rows)") }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
