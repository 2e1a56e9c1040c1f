/// A failure reported by libpq or the server. `sqlState` is the five-character SQLSTATE when the server
/// sent one, so callers can tell a unique violation (23505) from a real fault.
public struct PGError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable { case connection, server, protocolViolation, cancelled }

    public let kind: Kind
    public let sqlState: String?
    public let message: String
    public let detail: String?
    public let constraint: String?

    public init(
        kind: Kind, message: String, sqlState: String? = nil, detail: String? = nil, constraint: String? = nil
    ) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.constraint = constraint
    }

    public var isUniqueViolation: Bool { sqlState == "23505" }
    public var isSerializationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }

    public var description: String {
        var s = "PostgreSQL error"
        if let sqlState { s += " \(sqlState)" }
        s += ": \(message)"
        if let detail { s += " (\(detail))" }
        return s
    }
}
