import Foundation

/// Compiles LeanCloud's `where` JSON (the Parse/MongoDB query language) and `order` parameter into bound
/// PostgreSQL SQL over a `QuerySchema`. Field names and values only ever travel as bound parameters.
///
/// Field types are not known statically, so every condition on a jsonb field works whether the stored value is a
/// scalar or an array (array fields match when any element does, as in MongoDB). The result is a boolean
/// expression that may be NULL for rows that do not match; `WHERE` treats NULL as false, and every negation inside
/// is written `NOT COALESCE(…, FALSE)` so that NULL never flips into a match.
public struct WhereCompiler: Sendable {
    public let schema: QuerySchema
    /// Where `$inQuery`/`$select` find the objects of other classes; nil where there are none to query.
    public let related: RelatedClasses?

    /// How deeply `$or`/`$and` may nest; deeper queries are refused rather than compiled into huge SQL.
    public static let maxDepth = 16

    public init(schema: QuerySchema, related: RelatedClasses? = nil) {
        self.schema = schema
        self.related = related
    }

    /// A boolean SQL expression for `where`; an empty or null `where` is `TRUE`.
    public func compile(_ where: JSON) throws(QueryError) -> BoundSQL {
        switch `where` {
        case .null: return BoundSQL(sql: "TRUE")
        case .object(let fields): return try compileObject(fields, depth: 0)
        default: throw .invalidQuery("where must be a JSON object, not \(`where`.typeName)")
        }
    }

    /// The `ORDER BY` list (without the keyword) for LeanCloud's `order`: comma separated fields, `-field` for
    /// descending. It always ends with the tiebreak column so that `skip`/`limit` pages are stable.
    public func compileOrder(_ order: String) throws(QueryError) -> BoundSQL {
        var items: [BoundSQL] = []
        var seen = Set<String>()
        var tiebreakListed = false
        for raw in order.split(separator: ",") {
            var name = raw.trimmingCharacters(in: .whitespaces)
            if name.isEmpty { continue }
            let descending = name.hasPrefix("-")
            if descending { name.removeFirst() }
            let path = try FieldPath(name)
            guard seen.insert(path.name).inserted else { continue }
            switch try target(for: path) {
            case .column(let column, let expression):
                if column.name == schema.tiebreakColumn { tiebreakListed = true }
                items.append(expression + BoundSQL(sql: descending ? " DESC" : " ASC"))
            case .json(let expression):
                // MongoDB sorts missing and null values first when ascending; jsonb's own order puts JSON null
                // below every other value, so only SQL NULL (missing) needs placing.
                items.append(expression + BoundSQL(sql: descending ? " DESC NULLS LAST" : " ASC NULLS FIRST"))
            }
        }
        if !tiebreakListed {
            items.append(BoundSQL(sql: schema.qualified(schema.tiebreakColumn) + " ASC"))
        }
        return BoundSQL.joined(items, separator: ", ")
    }

    /// Validates LeanCloud's `keys` parameter (comma separated field names, dot paths allowed) and returns the names.
    public func validateKeys(_ keys: String) throws(QueryError) -> [String] {
        var names: [String] = []
        for raw in keys.split(separator: ",") {
            let name = raw.trimmingCharacters(in: .whitespaces)
            if name.isEmpty { continue }
            do {
                names.append(try FieldPath(name).name)
            } catch {
                throw .generic("invalid key '\(FieldPath.shown(name))' in keys")
            }
        }
        return names
    }

    func compileObject(_ fields: [String: JSON], depth: Int) throws(QueryError) -> BoundSQL {
        guard depth <= WhereCompiler.maxDepth else {
            throw .invalidQuery("query nested deeper than \(WhereCompiler.maxDepth) levels")
        }
        var conditions: [BoundSQL] = []
        // Sorted keys: the same query always compiles to the same SQL, which keeps plans and tests stable.
        for key in fields.keys.sorted() {
            let value = fields[key]!
            if key.hasPrefix("$") {
                conditions.append(try compileLogical(key, value, depth: depth))
            } else {
                conditions.append(try compileField(try FieldPath(key), value))
            }
        }
        return WhereCompiler.combine(conditions, with: "AND", empty: "TRUE")
    }

    /// `$or`, `$and` and `$nor` over a non-empty array of query objects. `$nor` is the AND of each clause's
    /// negation, and a clause that is NULL (a condition on a missing field) is a clause not matched, so `$nor`
    /// includes the row: MongoDB's "missing field is not matched by the clause".
    private func compileLogical(_ op: String, _ value: JSON, depth: Int) throws(QueryError) -> BoundSQL {
        guard ["$or", "$and", "$nor"].contains(op) else {
            throw .invalidQuery("unknown top-level operator \(FieldPath.shown(op))")
        }
        guard let items = value.arrayValue, !items.isEmpty else {
            throw .invalidQuery("\(op) expects a non-empty array of queries")
        }
        var parts: [BoundSQL] = []
        for item in items {
            guard let object = item.objectValue else {
                throw .invalidQuery("\(op) expects an array of query objects, found \(item.typeName)")
            }
            parts.append(try compileObject(object, depth: depth + 1))
        }
        switch op {
        case "$or": return WhereCompiler.combine(parts, with: "OR", empty: "FALSE")
        case "$and": return WhereCompiler.combine(parts, with: "AND", empty: "TRUE")
        default: return WhereCompiler.combine(parts.map(WhereCompiler.not), with: "AND", empty: "TRUE")
        }
    }

    /// Parenthesised so that the result can be embedded anywhere.
    static func combine(_ parts: [BoundSQL], with joiner: String, empty: String) -> BoundSQL {
        switch parts.count {
        case 0: return BoundSQL(sql: empty)
        case 1: return parts[0]
        default: return BoundSQL(sql: "(") + BoundSQL.joined(parts, separator: " \(joiner) ") + BoundSQL(sql: ")")
        }
    }
}
