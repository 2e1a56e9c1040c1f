import Postgres
import PushCore

extension JSON: PGEncodable {
    public var pgText: String? { encoded() }
}

extension PGQuery {
    /// A `BoundSQL` fragment from PushCore, its parameters bound after this query's.
    public init(_ bound: BoundSQL) {
        let r = bound.render()
        self.init(unsafeSQL: r.sql, binds: r.binds)
    }
}

extension PGQuery.StringInterpolation {
    public mutating func appendInterpolation(_ bound: BoundSQL) {
        appendInterpolation(PGQuery(bound))
    }
}

extension PGRow {
    public func json(_ name: String) throws -> JSON {
        try JSON.parse(string(name))
    }
}
