import Postgres
import PushCore

/// How the fan-out classifies an error raised while working on one push (see `FanOutFailurePolicy`), and
/// the reason its record shows.
public enum FanOutError {
    public static func kind(of error: any Error) -> FanOutFailurePolicy.Kind {
        switch error {
        case let error as PGError:
            if error.isConnectionLoss { return .databaseUnavailable }
            if error.isSerializationFailure || error.kind == .cancelled { return .transient }
            // Class 22 (data exception: a bad regex, a value out of range) and 42 (the statement itself) fail
            // the same way on every attempt.
            if let state = error.sqlState, state.hasPrefix("22") || state.hasPrefix("42") { return .permanent }
            return .transient
        case is LeanError, is TargetedEventMissing, is LedgerTransaction.PushStreamAppendRefused:
            return .permanent
        default:
            return .transient
        }
    }

    public static func reason(of error: any Error) -> String {
        switch error {
        case let error as LeanError: return error.message
        case let error as PGError: return "internal error: \(error.description)"
        default: return "internal error: \(error)"
        }
    }
}

extension JobState: PGEncodable { public var pgText: String? { rawValue } }
extension BatchState: PGEncodable { public var pgText: String? { rawValue } }
