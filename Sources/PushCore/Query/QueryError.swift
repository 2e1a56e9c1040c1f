/// Why a `where`, `order` or `keys` parameter was refused, with the LeanCloud error code the API answers with
/// (102 invalid query, 1 generic parameter error).
public struct QueryError: Error, Sendable, Hashable, CustomStringConvertible {
    public let code: Int
    public let message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    public static let invalidQueryCode = 102
    public static let genericCode = 1

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
