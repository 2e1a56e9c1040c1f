/// One self-contained html page: the bundled template (inline css), the charts as inline svg and the
/// table with its totals. Every text from the data is escaped; nothing is fetched when it is opened.
enum HTMLReportRenderer {
    static func render(_ document: ReportDocument) throws -> String {
        let charts = document.charts.map { $0.svgFigure() }.joined(separator: "\n")
        let slots = [
            "{{title}}": HTMLText.escape(document.title),
            "{{subtitle}}": HTMLText.escape(document.subtitle),
            "{{tableTitle}}": HTMLText.escape(document.tableTitle),
            "{{charts}}": charts,
            "{{table}}": table(document.table),
        ]
        // One pass over the template, so a slot's content is never searched for further slots.
        var out = ""
        var rest = Substring(try ReportDefinitions.htmlTemplate())
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else { break }
            let slot = String(rest[open.lowerBound..<close.upperBound])
            out += slots[slot] ?? slot
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    static func table(_ table: ReportTable) -> String {
        guard !table.rows.isEmpty else { return "<p class=\"empty\">No rows in this range.</p>" }
        var out = "<table>\n<thead><tr>"
        out += table.columns.map { "<th>\(HTMLText.escape($0))</th>" }.joined()
        out += "</tr></thead>\n<tbody>\n"
        for row in table.rows { out += "<tr>" + row.map(cell).joined() + "</tr>\n" }
        out += "</tbody>\n"
        if let totals = table.totals {
            out += "<tfoot><tr class=\"total\">" + totals.map(cell).joined() + "</tr></tfoot>\n"
        }
        return out + "</table>"
    }

    static func cell(_ value: ReportValue) -> String {
        switch value {
        case .object: "<td><code>\(HTMLText.escape(value.text))</code></td>"
        case _ where value.isNumeric: "<td class=\"num\">\(HTMLText.escape(value.text))</td>"
        default: "<td>\(HTMLText.escape(value.text))</td>"
        }
    }
}
