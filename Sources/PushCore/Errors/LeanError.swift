/// An error a client sees as LeanCloud's `{"code": N, "error": "..."}`. Every layer throws these for bad input;
/// its `kind` says what went wrong in the service's own terms, and only the edges (the REST API, the device
/// channel) turn a kind into an HTTP status or a close code.
public struct LeanError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: Code
    public let message: String
    public let kind: Kind
    /// Seconds a refused client should wait (the `Retry-After` header of a rate-limit answer).
    public let retryAfterSeconds: Int?

    public init(_ code: Code, _ message: String, kind: Kind = .badRequest, retryAfterSeconds: Int? = nil) {
        self.code = code
        self.message = message
        self.kind = kind
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String { "LeanError(\(code), \(message))" }

    /// LeanCloud's `{"code": N, "error": "..."}`, as every answer that carries an error spells it.
    public var body: JSON { ["code": .int(Int64(code.rawValue)), "error": .string(message)] }

    /// What went wrong, for the edges to answer with the matching status.
    public enum Kind: Sendable, Hashable {
        /// The request itself is wrong (the default).
        case badRequest
        /// No valid app key, master key or token.
        case unauthorized
        /// The caller may not do this (client pushes off, another user's object, the quota used up).
        case forbidden
        case notFound
        /// Another writer changed the object first; trying again may succeed.
        case conflict
        case tooLarge
        /// Too many requests; `retryAfterSeconds` says when to come back.
        case tooManyRequests
        /// The database or the service is not available for now.
        case unavailable
        /// A fault of the service's own, never caused by the request.
        case internalFailure
    }

    /// LeanCloud's error codes by name, as its SDKs test for them (SPEC §2, §12.5). A literal works too,
    /// for the codes the SDKs compare with numbers.
    public struct Code: RawRepresentable, Sendable, Hashable, ExpressibleByIntegerLiteral, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public init(integerLiteral value: Int) { rawValue = value }
        public var description: String { String(rawValue) }

        /// LeanCloud's catch-all: a bad value or a refusal without a code of its own.
        public static let invalidParameter: Code = 1
        public static let objectNotFound: Code = 101
        public static let invalidQuery: Code = 102
        public static let invalidClassName: Code = 103
        public static let invalidKeyName: Code = 105
        public static let malformedJSON: Code = 107
        public static let incorrectType: Code = 111
        public static let invalidChannel: Code = 112
        public static let invalidDeviceToken: Code = 114
        public static let operationForbidden: Code = 119
        public static let ambiguousToken: Code = 132
        public static let missingField: Code = 135
        public static let immutableField: Code = 136
        public static let usernameMissing: Code = 200
        public static let passwordMissing: Code = 201
        public static let usernameTaken: Code = 202
        public static let sessionMissing: Code = 206
        public static let passwordMismatch: Code = 210
        public static let userNotFound: Code = 211
        public static let loginThrottled: Code = 219
        public static let unauthorized: Code = 401
        public static let routeNotFound: Code = 404
        public static let rateLimited: Code = 429
    }

    public static func invalidParameter(_ message: String, kind: Kind = .badRequest) -> LeanError {
        LeanError(.invalidParameter, message, kind: kind)
    }
    public static func notFound(_ message: String = "Object not found.") -> LeanError {
        LeanError(.objectNotFound, message, kind: .notFound)
    }
    public static func invalidQuery(_ message: String) -> LeanError { LeanError(.invalidQuery, message) }
    public static func invalidKeyName(_ message: String) -> LeanError { LeanError(.invalidKeyName, message) }
    public static func malformedJSON(_ message: String) -> LeanError {
        LeanError(.malformedJSON, "Malformed json object. \(message)")
    }
    public static func invalidChannel(_ name: String) -> LeanError {
        LeanError(
            .invalidChannel,
            "Invalid channel name: \(name). A channel name is either an empty string (the broadcast "
                + "channel) or contains only a-zA-Z0-9_-= and CJK characters.")
    }
    public static func invalidDeviceToken(_ message: String) -> LeanError { LeanError(.invalidDeviceToken, message) }
    public static func forbidden(_ message: String) -> LeanError {
        LeanError(.operationForbidden, message, kind: .forbidden)
    }
    public static func ambiguousToken(_ message: String) -> LeanError { LeanError(.ambiguousToken, message) }
    public static func missingField(_ message: String) -> LeanError { LeanError(.missingField, message) }
    public static func immutableField(_ field: String) -> LeanError {
        LeanError(.immutableField, "\(field) is immutable and cannot be changed.")
    }
    public static let unauthorized = LeanError(.unauthorized, "Unauthorized.", kind: .unauthorized)
    public static func tooLarge(_ limit: Int) -> LeanError {
        LeanError(.invalidParameter, "Request entity too large: the limit is \(limit) bytes.", kind: .tooLarge)
    }
    public static func rateLimited(_ message: String, retryAfter: Int) -> LeanError {
        LeanError(.rateLimited, message, kind: .tooManyRequests, retryAfterSeconds: retryAfter)
    }
    /// The app's daily push quota is used up (SPEC §4.8).
    public static func quotaExceeded(_ message: String) -> LeanError {
        LeanError(.operationForbidden, message, kind: .forbidden)
    }
    /// Another writer changed the object between this request's read and its write.
    public static func changedConcurrently(_ what: String) -> LeanError {
        LeanError(.invalidParameter, "The \(what) changed concurrently; try again.", kind: .conflict)
    }
    /// The database is down or restarting: a prompt, retryable answer instead of a hang.
    public static let databaseUnavailable = LeanError(
        .invalidParameter, "The database is unavailable; try again shortly.", kind: .unavailable, retryAfterSeconds: 5)
    /// An unexpected fault; its text leaks nothing of the cause.
    public static let internalFailure = LeanError(.invalidParameter, "Internal server error.", kind: .internalFailure)
}
