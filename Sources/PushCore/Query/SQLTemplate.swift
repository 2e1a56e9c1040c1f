/// Builds `BoundSQL` from a string literal: literal segments are SQL text written in this module, interpolations are
/// either already-built fragments or bound values (`\(bind: text)`). Internal on purpose, so that only source text of
/// PushCore ever becomes SQL and callers outside cannot turn input into SQL by accident.
struct SQLTemplate: ExpressibleByStringInterpolation {
    let sql: BoundSQL

    init(stringLiteral value: String) { sql = BoundSQL(sql: value) }

    init(stringInterpolation: Interpolation) { sql = stringInterpolation.sql }

    struct Interpolation: StringInterpolationProtocol {
        var sql = BoundSQL()

        init(literalCapacity: Int, interpolationCount: Int) {}

        mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { sql.append(sql: literal) }
        }

        mutating func appendInterpolation(_ fragment: BoundSQL) { sql.append(fragment) }

        mutating func appendInterpolation(bind value: String?) { sql.append(bind: value) }

        mutating func appendInterpolation(regex pattern: String) { sql.append(regex: pattern) }
    }
}

/// Shorthand so call sites read like SQL: `sql("(\(field) @> \(bind: value)::jsonb)")`.
func sql(_ template: SQLTemplate) -> BoundSQL { template.sql }
