import ArgumentParser
import Foundation
import Postgres
import PushCore

/// The exit statuses of every `pushledger` command: one table for all of them, documented in
/// docs/operations.md "Exit codes". The BSD sysexits values are used where one fits, as ArgumentParser already
/// does for usage errors.
enum ExitStatus: Int32, CaseIterable {
    /// The command did what it was asked.
    case success = 0
    /// The operation failed: a runtime error, a LeanCloud error (printed as `{"code","error"}`), a migration that
    /// changed, differences found by `rebuild --verify`.
    case failure = 1
    /// EX_USAGE: an unknown or malformed flag or argument (`--at`, `--now`, `--from`, …), or an environment
    /// variable standing in for one with a value it cannot take (`PORT=abc`, `LOG_LEVEL=bogus`).
    case usage = 64
    /// EX_UNAVAILABLE: the database cannot be reached (refused, unreachable, authentication failed, lost).
    case unavailable = 69

    var exitCode: ExitCode { ExitCode(rawValue) }

    /// The short form `pushledger --help` shows.
    var meaning: String {
        switch self {
        case .success: "success"
        case .failure: "the operation failed"
        case .usage: "usage error (flags, arguments, environment variables)"
        case .unavailable: "the database cannot be reached"
        }
    }

    static var helpText: String {
        "Exit status: " + allCases.map { "\($0.rawValue) \($0.meaning)" }.joined(separator: "; ") + "."
    }

    /// What `main` hands to ArgumentParser for an error a command threw. Errors ArgumentParser renders itself
    /// (help, `ValidationError` = 64, `ExitCode`) pass through unchanged; the others of the table are reported
    /// here on one line of stderr and become their status. Anything else stays a failure (1) with ArgumentParser's
    /// `Error: …` line.
    static func exitError(for error: any Error) -> any Error {
        switch error {
        case let error as UsageError:
            report("Error: \(error.message)")
            return usage.exitCode
        case let error as PGError where error.isConnectionLoss:
            report("Error: cannot reach the database: \(oneLine(error.message))")
            return unavailable.exitCode
        case let error as LeanError:
            return CommandFailure.exit(error)
        default:
            return error
        }
    }

    /// libpq's messages run over several lines ("…failed: Connection refused\n\tIs the server running…").
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }

    static func report(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
