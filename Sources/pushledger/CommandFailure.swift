import ArgumentParser
import Foundation
import Ledger
import PushCore

/// How the report-style commands fail: a clear message on stderr and exit status 1 (LeanCloud errors in
/// their `{"code","error"}` form, so scripts read the same text the API would answer).
enum CommandFailure {
    static func exit(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return ExitCode(1)
    }

    static func exit(_ error: LeanError) -> ExitCode {
        exit((["code": .int(Int64(error.code)), "error": .string(error.message)] as JSON).encoded())
    }

    /// An ISO 8601 instant given on the command line, or exit 1.
    static func instant(_ text: String) throws -> Date {
        guard let date = LeanDate.parse(text) else { throw exit("--at must be an ISO 8601 date, not \(text)") }
        return date
    }

    /// A JSON option (`--where`, `--data`); malformed JSON is LeanCloud's code 107.
    static func json(_ text: String) throws -> JSON {
        do {
            return try JSON.parse(text)
        } catch {
            throw exit(LeanError.malformedJSON(error.description))
        }
    }
}
