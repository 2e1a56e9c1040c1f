import Foundation
import Postgres

/// The SQL of each report and the html template: the files of `reports/` (`Sources/Reports/Definitions`),
/// bundled with the binary so operators can read exactly what a report runs.
enum ReportDefinitions {
    static func sql(_ name: String) throws -> String { try text(name, extension: "sql") }
    static func htmlTemplate() throws -> String { try text("report", extension: "html") }

    private static func text(_ name: String, extension ext: String) throws -> String {
        guard let url = Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Definitions") else {
            throw PGError(
                kind: .protocolViolation, message: "report definition \(name).\(ext) is missing from the bundle")
        }
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// Runs a report query with its parameters bound as `$1…`; the text is ours, read from the bundle.
    static func run(_ name: String, binds: [String?], on pool: PGPool) async throws -> PGRows {
        try await pool.query(PGQuery(unsafeSQL: try sql(name), binds: binds))
    }
}
