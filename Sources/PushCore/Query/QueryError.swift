/// Why a `where`, `order` or `keys` parameter was refused, with the LeanCloud error code the API answers with
/// (102 invalid query, 1 generic parameter error).
public struct QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: LeanError.Code
    public let message: String

    public init(code: LeanError.Code, message: String) {
        self.code = code
        self.message = message
    }

    public static let invalidQueryCode = LeanError.Code.invalidQuery
    public static let genericCode = LeanError.Code.invalidParameter
    public static let forbiddenCode = LeanError.Code.operationForbidden

    /// The query reads a class the caller may not read (`_User` without the master key): LeanCloud code 119,
    /// answered 403 like a direct request for that class.
    public static func forbidden(_ message: String) -> QueryError {
        QueryError(code: forbiddenCode, message: message)
    }

    /// Unknown operator, bad operand, bad field name: LeanCloud code 102.
    public static func invalidQuery(_ message: String) -> QueryError {
        QueryError(code: invalidQueryCode, message: message)
    }

    /// A parameter error that is not about the query language itself: LeanCloud code 1.
    public static func generic(_ message: String) -> QueryError {
        QueryError(code: genericCode, message: message)
    }

    public var description: String { "\(code): \(message)" }
}
