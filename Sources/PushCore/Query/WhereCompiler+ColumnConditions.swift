/// Conditions on a real typed column (`objectId`, `createdAt`, `updatedAt` for installations). A value of a type
/// the column can never hold matches nothing, as it would in MongoDB; only date columns insist on a date operand,
/// because a wrong one there is surely a client bug worth reporting.
extension WhereCompiler {
    func columnEquals(
        _ column: BoundSQL, _ definition: QuerySchema.Column, _ operand: QueryOperand, field: String
    ) throws(QueryError) -> BoundSQL {
        if case .null = operand { return column + BoundSQL(sql: " IS NULL") }
        guard let (text, cast) = try WhereCompiler.columnValue(definition, operand, field: field) else {
            return BoundSQL(sql: "FALSE")
        }
        return sql("(\(column) = \(bind: text)::\(BoundSQL(sql: cast)))")
    }

    func columnCompare(
        _ column: BoundSQL, _ definition: QuerySchema.Column, _ sqlOperator: String, _ operand: QueryOperand,
        field: String
    ) throws(QueryError) -> BoundSQL {
        guard let (text, cast) = try WhereCompiler.columnValue(definition, operand, field: field),
            definition.type != .boolean
        else { return BoundSQL(sql: "FALSE") }
        // Strings order by code point whatever the database collation, like MongoDB and the jsonb fields.
        let left = definition.type == .text ? column + BoundSQL(sql: " COLLATE \"C\"") : column
        return sql("(\(left) \(BoundSQL(sql: sqlOperator)) \(bind: text)::\(BoundSQL(sql: cast)))")
    }

    func columnRegex(
        _ column: BoundSQL, _ definition: QuerySchema.Column, _ pattern: String, field: String
    ) throws(QueryError) -> BoundSQL {
        switch definition.type {
        case .text: return sql("(\(column) ~ \(regex: pattern)::text)")
        case .timestamptz: throw .invalidQuery("$regex cannot apply to date field '\(field)'")
        case .bigint, .doublePrecision, .boolean: return BoundSQL(sql: "FALSE")
        }
    }

    /// The bound text and SQL cast for an operand compared with a column, or nil when no row could match.
    static func columnValue(
        _ column: QuerySchema.Column, _ operand: QueryOperand, field: String
    ) throws(QueryError) -> (String, String)? {
        switch (column.type, operand) {
        case (.text, .scalar(.string(let text))):
            return (text, "text")
        case (.bigint, .scalar(let number)), (.doublePrecision, .scalar(let number)):
            guard number.isNumber else { return nil }
            return (number.encoded(), "numeric")
        case (.boolean, .scalar(.bool(let flag))):
            return (flag ? "true" : "false", "boolean")
        case (.timestamptz, .date(let iso)):
            return (iso, "timestamptz")
        case (.timestamptz, .scalar(.string(let text))):
            // createdAt/updatedAt also accept plain ISO strings, as SDKs send both.
            guard let iso = QueryOperand.canonicalDate(text) else {
                throw .invalidQuery("invalid date '\(FieldPath.shown(text))' for field '\(field)'")
            }
            return (iso, "timestamptz")
        case (.timestamptz, _):
            throw .invalidQuery("field '\(field)' is a date: compare it with a Date or an ISO 8601 string")
        default:
            return nil
        }
    }
}
