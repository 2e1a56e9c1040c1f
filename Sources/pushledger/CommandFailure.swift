import ArgumentParser
import Foundation
import Ledger
import PushCore

/// How commands fail with a message of their own: the message on stderr and `ExitStatus.failure` (LeanCloud
/// errors in their `{"code","error"}` form, so scripts read the same text the API would answer). Usage errors
/// are `ValidationError`s (64) instead; see `ExitStatus`.
enum CommandFailure {
    static func exit(_ message: String) -> ExitCode {
        ExitStatus.report(message)
        return ExitStatus.failure.exitCode
    }

    static func exit(_ error: LeanError) -> ExitCode {
        exit(error.body.encoded())
    }

    /// An ISO 8601 instant given as `flag` on the command line, or a usage error.
    static func instant(_ text: String, flag: String = "--at") throws -> Date {
        guard let date = LeanDate.parse(text) else {
            throw ValidationError("\(flag) must be an ISO 8601 instant such as 2025-01-02T03:04:05.000Z, not \(text)")
        }
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
