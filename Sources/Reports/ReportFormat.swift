import PushCore

/// How a report is printed: `json` is one array of row objects (SPEC §9), the others are for people.
public enum ReportFormat: String, Sendable, CaseIterable {
    case table, csv, json, html

    public static func parse(_ text: String) throws(LeanError) -> ReportFormat {
        guard let format = ReportFormat(rawValue: text.lowercased()) else {
            throw LeanError.invalidParameter("Unknown report format \(text); use table, csv, json or html.")
        }
        return format
    }

    /// The HTTP content type of the REST answer.
    public var contentType: String {
        switch self {
        case .table: "text/plain; charset=utf-8"
        case .csv: "text/csv; charset=utf-8"
        case .json: "application/json; charset=utf-8"
        case .html: "text/html; charset=utf-8"
        }
    }
}
