/// A finished report: its rows, and for the html format a title and charts drawn from the same data.
public struct ReportDocument: Sendable {
    public let title: String
    public let subtitle: String
    public let tableTitle: String
    public let table: ReportTable
    public let charts: [SVGChart]

    public init(title: String, subtitle: String, tableTitle: String, table: ReportTable, charts: [SVGChart] = []) {
        self.title = title
        self.subtitle = subtitle
        self.tableTitle = tableTitle
        self.table = table
        self.charts = charts
    }

    public func render(_ format: ReportFormat) throws -> String {
        switch format {
        case .json: JSONReportRenderer.render(table)
        case .csv: CSVReportRenderer.render(table)
        case .table: TextTableRenderer.render(table)
        case .html: try HTMLReportRenderer.render(self)
        }
    }
}
