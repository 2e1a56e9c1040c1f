/// Rows of one kind under named columns (the camelCase JSON keys), with an optional totals row that the
/// table, csv and html formats print last and the JSON format leaves out (SPEC §9: JSON is rows only).
public struct ReportTable: Sendable {
    public let columns: [String]
    public let rows: [[ReportValue]]
    public let totals: [ReportValue]?

    public init(columns: [String], rows: [[ReportValue]], totals: [ReportValue]? = nil) {
        precondition(rows.allSatisfy { $0.count == columns.count } && (totals?.count ?? columns.count) == columns.count)
        self.columns = columns
        self.rows = rows
        self.totals = totals
    }

    /// The values of one column, in row order.
    public func column(_ key: String) -> [ReportValue] {
        guard let i = columns.firstIndex(of: key) else { return [] }
        return rows.map { $0[i] }
    }
}
