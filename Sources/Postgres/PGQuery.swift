/// A SQL statement whose values travel as bound parameters. Interpolated values become `$n` placeholders;
/// trusted SQL text can only be spliced in through `unsafeRaw:`, so concatenated input stands out in review.
public struct PGQuery: Sendable, ExpressibleByStringInterpolation {
    public private(set) var sql: String
    public private(set) var binds: [String?]
    /// How the server plans this statement: for its values at each execution (the default), or once without
    /// them (`reusingPlan()`).
    private(set) var planning = Planning.perExecution
    enum Planning: Sendable { case perExecution, reusable }
    /// Whether the server may keep one generic plan for this statement.
    public var reusesPlan: Bool { planning != .perExecution }

    public init(stringLiteral value: String) {
        self.sql = value
        self.binds = []
    }

    public init(stringInterpolation: StringInterpolation) {
        self.sql = stringInterpolation.sql
        self.binds = stringInterpolation.binds
    }

    /// SQL text that the caller guarantees contains no user input, with already numbered parameters.
    public init(unsafeSQL sql: String, binds: [String?] = []) {
        self.sql = sql
        self.binds = binds
    }

    /// Lets PostgreSQL reuse one generic plan for this statement instead of planning it for each execution
    /// (`plan_cache_mode = auto` while it runs). For fixed statements on hot paths whose best plan does
    /// not depend on the values, e.g. a lookup by key: planning was half of PostgreSQL's statement time in
    /// an installation save. Statements whose plan should follow the values (a `where` over skewed data, a channel that
    /// most devices share) keep the default, a plan for each execution. The connection prepares such a
    /// statement afresh every ten seconds (`PGConnection.connect(url:genericPlanLifetime:)`), so a plan
    /// made while a table was still small does not outlive that.
    public func reusingPlan() -> PGQuery {
        var copy = self
        copy.planning = .reusable
        return copy
    }

    /// `query.reusingPlan()`, spelled so a statement literal can be written in place.
    public static func reusingPlan(_ query: PGQuery) -> PGQuery { query.reusingPlan() }

    /// Appends another query, renumbering its placeholders after ours.
    public mutating func append(_ other: PGQuery) {
        if other.binds.isEmpty {
            sql += other.sql
            return
        }
        sql += PGQuery.renumber(other.sql, offset: binds.count)
        binds += other.binds
    }

    public static func + (lhs: PGQuery, rhs: PGQuery) -> PGQuery {
        var out = lhs
        out.append(rhs)
        return out
    }

    /// Shifts `$n` placeholders by `offset`; placeholders inside quoted literals are left alone.
    static func renumber(_ sql: String, offset: Int) -> String {
        guard offset > 0 else { return sql }
        var out = ""
        out.reserveCapacity(sql.utf8.count + 8)
        var chars = sql.unicodeScalars.makeIterator()
        var inQuote: Unicode.Scalar? = nil
        var pending: Unicode.Scalar? = chars.next()
        while let c = pending {
            pending = chars.next()
            if let q = inQuote {
                out.unicodeScalars.append(c)
                if c == q { inQuote = nil }
                continue
            }
            if c == "'" || c == "\"" {
                inQuote = c
                out.unicodeScalars.append(c)
                continue
            }
            if c == "$", let next = pending, ("0"..."9").contains(next) {
                var digits = ""
                while let d = pending, ("0"..."9").contains(d) {
                    digits.unicodeScalars.append(d)
                    pending = chars.next()
                }
                out += "$\(Int(digits)! + offset)"
                continue
            }
            out.unicodeScalars.append(c)
        }
        return out
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        public var sql: String
        public var binds: [String?]

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql = ""
            sql.reserveCapacity(literalCapacity + interpolationCount * 3)
            binds = []
            binds.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) { sql += literal }

        public mutating func appendInterpolation(_ value: some PGEncodable) {
            binds.append(value.pgText)
            sql += "$\(binds.count)"
        }

        public mutating func appendInterpolation(_ value: (some PGEncodable)?) {
            binds.append(value?.pgText)
            sql += "$\(binds.count)"
        }

        /// Trusted SQL text (identifiers we chose, fragments built by our own code).
        public mutating func appendInterpolation(unsafeRaw text: String) { sql += text }

        /// Another query, its placeholders renumbered after ours.
        public mutating func appendInterpolation(_ query: PGQuery) {
            sql += PGQuery.renumber(query.sql, offset: binds.count)
            binds += query.binds
        }
    }
}
