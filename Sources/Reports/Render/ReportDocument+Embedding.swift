import PushCore

/// The parts of a report that another page (the console) embeds: the html table the html format prints, and
/// each chart's figures as JSON beside its svg, so the chart can be checked against the JSON report.
extension ReportDocument {
    public var htmlTable: String { HTMLReportRenderer.table(table) }
}

extension SVGChart {
    /// `{"title","kind","categories","series":[{"name","values"}]}`: exactly what the svg draws.
    public var dataJSON: JSON {
        [
            "title": .string(title), "kind": .string(kind == .bars ? "bars" : "lines"),
            "categories": .array(categories.map { .string($0) }),
            "series": .array(
                series.map { s -> JSON in
                    ["name": .string(s.name), "values": .array(s.values.map { .double($0) })]
                }),
        ]
    }
}
