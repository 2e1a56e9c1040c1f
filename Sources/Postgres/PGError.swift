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

    public static let invalidRegularExpression = "2201B"

    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// The server is gone or unreachable (stopped, restarting, network): worth retrying, not the request's fault.
    public var isConnectionLoss: Bool {
        kind == .connection
            || sqlState.map { $0.hasPrefix("08") || $0 == "57P01" || $0 == "57P02" || $0 == "57P03" }
                ?? false
    }
    /// SQLSTATE class 22: the data could not be taken (a value out of range, an invalid regular expression…).
    public var isDataException: Bool { sqlState?.hasPrefix("22") ?? false }
    public var isSerializationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }

    public var description: String {
        var s = "PostgreSQL error"
        if let sqlState { s += " \(sqlState)" }
        s += ": \(message)"
        if let detail { s += " (\(detail))" }
        return s
    }
}
