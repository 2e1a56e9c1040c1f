import PushCore

/// SPEC §9's JSON: one array of row objects. One row per line keeps large reports readable and diffable
/// while staying a single JSON document; totals are not a row and are left out.
enum JSONReportRenderer {
    static func render(_ table: ReportTable) -> String {
        if table.rows.isEmpty { return "[]\n" }
        let lines = table.rows.map { row in
            JSON.object(Dictionary(uniqueKeysWithValues: zip(table.columns, row.map(\.json)))).encoded()
        }
        return "[\n" + lines.joined(separator: ",\n") + "\n]\n"
    }
}
