/// An error a client sees as LeanCloud's `{"code": N, "error": "..."}` with an HTTP status. Every layer
/// throws these for bad input; the API maps them to a response in one place.
public struct LeanError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Int
    public let message: String
    public let httpStatus: Int
    /// Seconds a refused client should wait (the `Retry-After` header of a rate-limit answer).
    public let retryAfterSeconds: Int?

    public init(_ code: Int, _ message: String, status: Int = 400, retryAfterSeconds: Int? = nil) {
        self.code = code
        self.message = message
        self.httpStatus = status
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "LeanError(\(code), \(message))" }

    public static func invalidParameter(_ message: String) -> LeanError { LeanError(1, message) }
    public static func notFound(_ message: String = "Object not found.") -> LeanError {
        LeanError(101, message, status: 404)
    }
    public static func invalidQuery(_ message: String) -> LeanError { LeanError(102, message) }
    public static func invalidKeyName(_ message: String) -> LeanError { LeanError(105, message) }
    public static func malformedJSON(_ message: String) -> LeanError {
        LeanError(107, "Malformed json object. \(message)")
    }
    public static func invalidChannel(_ name: String) -> LeanError {
        LeanError(
            112,
            "Invalid channel name: \(name). A channel name is either an empty string (the broadcast "
                + "channel) or contains only a-zA-Z0-9_-= and CJK characters.")
    }
    public static func invalidDeviceToken(_ message: String) -> LeanError { LeanError(114, message) }
    public static func forbidden(_ message: String) -> LeanError { LeanError(119, message, status: 403) }
    public static func ambiguousToken(_ message: String) -> LeanError { LeanError(132, message) }
    public static func missingField(_ message: String) -> LeanError { LeanError(135, message) }
    public static func immutableField(_ field: String) -> LeanError {
        LeanError(136, "\(field) is immutable and cannot be changed.")
    }
    public static let unauthorized = LeanError(401, "Unauthorized.", status: 401)
    public static func tooLarge(_ limit: Int) -> LeanError {
        LeanError(1, "Request entity too large: the limit is \(limit) bytes.", status: 413)
    }
    public static func rateLimited(_ message: String, retryAfter: Int) -> LeanError {
        LeanError(429, message, status: 429, retryAfterSeconds: retryAfter)
    }
    /// The app's daily push quota is used up (SPEC §4.8).
    public static func quotaExceeded(_ message: String) -> LeanError { LeanError(119, message, status: 403) }
}
