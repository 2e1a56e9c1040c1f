import Foundation
import PushCore

/// Runs SQL scripts through the `psql` client for the database tests (PUSHLEDGER_TEST_PSQL_URL). psql cannot bind
/// parameters, so queries are `PREPARE`d with `text` parameters exactly as the library emits them and `EXECUTE`d
/// with their values rendered as quoted literals here — rendering that exists only in tests.
enum PSQLRunner {
    static var url: String? {
        guard let url = ProcessInfo.processInfo.environment["PUSHLEDGER_TEST_PSQL_URL"], !url.isEmpty else {
            return nil
        }
        return url
    }

    static var isConfigured: Bool { url != nil }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `script` in one session (so temp tables live through it) and returns psql's unaligned output.
    static func run(_ script: String) throws -> String {
        guard let url else { throw Failure(description: "PUSHLEDGER_TEST_PSQL_URL is not set") }
        let file = FileManager.default.temporaryDirectory
            .appendingPathComponent("pushcore-psql-\(UUID().uuidString).sql")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", url, "-v", "ON_ERROR_STOP=1", "-X", "-q", "-At", "-f", file.path]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read before waiting: a full pipe would otherwise block psql forever.
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description: "psql failed (\(process.terminationStatus)): "
                    + String(decoding: err, as: UTF8.self))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A SQL string literal (standard_conforming_strings on: only quotes need doubling).
    static func literal(_ value: String?) -> String {
        guard let value else { return "NULL" }
        return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// `PREPARE name(text, …) AS <select with the fragment>;` followed by `EXECUTE name('…', …);`.
    static func prepareAndExecute(_ name: String, select: (String) -> String, _ fragment: BoundSQL) -> String {
        let (sql, binds) = fragment.render()
        let types = binds.isEmpty ? "" : "(" + Array(repeating: "text", count: binds.count).joined(separator: ",") + ")"
        let arguments = binds.isEmpty ? "" : "(" + binds.map(literal).joined(separator: ", ") + ")"
        return "PREPARE \(name)\(types) AS \(select(sql));\nEXECUTE \(name)\(arguments);\n"
    }
}
