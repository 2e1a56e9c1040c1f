/// SQL text with its parameters kept apart. The `where` compiler and other pure code build these; the
/// Ledger turns them into numbered `$n` placeholders when it hands them to PostgreSQL. User input only
/// ever travels as a bound parameter (`.bind`), never as SQL text.
public struct BoundSQL: Sendable, Hashable, CustomStringConvertible {
    public enum Part: Sendable, Hashable {
        case sql(String)
        /// A text parameter; the SQL around it casts it (`::jsonb`, `::timestamptz`, …).
        case bind(String?)
    }

    public private(set) var parts: [Part]
    /// The PostgreSQL regular expressions bound inside, so that a caller can have PostgreSQL check them up
    /// front (`~` only compiles a pattern when it first meets a row, so a bad one would fail later, or never).
    public private(set) var regexPatterns: [String] = []

    public init(_ parts: [Part] = []) { self.parts = parts }

    /// Trusted SQL text written by us, never built from input.
    public init(sql: String) { self.parts = [.sql(sql)] }

    public mutating func append(sql: String) { parts.append(.sql(sql)) }
    public mutating func append(bind value: String?) { parts.append(.bind(value)) }
    /// Binds a PostgreSQL regular expression and remembers it in `regexPatterns`.
    public mutating func append(regex pattern: String) {
        parts.append(.bind(pattern))
        regexPatterns.append(pattern)
    }
    public mutating func append(_ other: BoundSQL) {
        parts.append(contentsOf: other.parts)
        regexPatterns.append(contentsOf: other.regexPatterns)
    }

    public static func + (lhs: BoundSQL, rhs: BoundSQL) -> BoundSQL {
        var out = lhs
        out.append(rhs)
        return out
    }

    /// Joins fragments with a separator such as `" AND "`.
    public static func joined(_ items: [BoundSQL], separator: String) -> BoundSQL {
        var out = BoundSQL()
        for (i, item) in items.enumerated() {
            if i > 0 { out.append(sql: separator) }
            out.append(item)
        }
        return out
    }

    public var bindCount: Int { parts.reduce(0) { if case .bind = $1 { return $0 + 1 } else { return $0 } } }

    /// Renders `$n` placeholders starting after `offset` existing parameters.
    public func render(parameterOffset offset: Int = 0) -> (sql: String, binds: [String?]) {
        var sql = ""
        var binds: [String?] = []
        for part in parts {
            switch part {
            case .sql(let text): sql += text
            case .bind(let value):
                binds.append(value)
                sql += "$\(offset + binds.count)"
            }
        }
        return (sql, binds)
    }

    public var description: String {
        let r = render()
        return r.sql + " -- " + r.binds.map { $0 ?? "NULL" }.joined(separator: ", ")
    }
}
