/// Whose query it is, which decides the classes its sub-queries may read.
public enum QueryRights: Sendable, Hashable {
    /// The master key, or the system itself (the fan-out targeting a push accepted earlier, replay, reports).
    case master
    /// The app key: every class but the master-only ones (`ClassName.masterOnly`).
    case client

    public init(isMaster: Bool) { self = isMaster ? .master : .client }

    func mayRead(_ className: String) -> Bool { self == .master || !ClassName.masterOnly.contains(className) }
}

/// Where the objects of other classes are (`$inQuery`, `$notInQuery`, `$select`, `$dontSelect`; SPEC §12.1):
/// the app (bound), the table (`objects`, or a replay's scratch copy), and what the caller may read. Sub-queries
/// become uncorrelated `IN (SELECT …)` inside the one statement, never a query per row.
public struct RelatedClasses: Sendable, Hashable {
    public let appId: String
    /// A trusted table name, e.g. `objects`.
    public let objectsTable: String
    /// Checked for every class a sub-query names, at every depth, before anything is evaluated: a sub-query is
    /// otherwise an oracle (one result or none) on rows the caller may not read directly.
    public let rights: QueryRights
    /// How deep the current sub-query is; each level gets its own table alias.
    let level: Int

    public init(appId: String, objectsTable: String = "objects", rights: QueryRights) {
        precondition(objectsTable.split(separator: ".").allSatisfy { QuerySchema.isSQLIdentifier(String($0)) })
        self.init(appId: appId, objectsTable: objectsTable, rights: rights, level: 0)
    }

    private init(appId: String, objectsTable: String, rights: QueryRights, level: Int) {
        self.appId = appId
        self.objectsTable = objectsTable
        self.rights = rights
        self.level = level
    }

    var deeper: RelatedClasses {
        RelatedClasses(appId: appId, objectsTable: objectsTable, rights: rights, level: level + 1)
    }
    /// Sub-queries never refer to the outer row, so an alias per level only keeps the SQL readable.
    var alias: String { "rel\(level)" }

    /// How the sub-query's `where` reads `objects`.
    var schema: QuerySchema { QuerySchema.objects.aliased(alias) }
}

extension WhereCompiler {
    /// `$inQuery` / `$notInQuery`: the Pointer in the field points at an object the sub-query matches. The
    /// operand is `{"className","where"}` (limit, skip and order are ignored: a semi-join is unbounded) or the
    /// seed's shorthand, a bare `where`, whose class is the one the stored pointer names.
    func inQuery(_ operand: JSON, _ target: FieldTarget, op: String, field: String) throws(QueryError) -> BoundSQL {
        guard let object = operand.objectValue else {
            throw .invalidQuery(
                "\(op) expects {\"className\", \"where\"} for field '\(field)', not \(operand.typeName)")
        }
        let pointer = try pointerTarget(target, op: op, field: field)
        let related = try relatedContext(op: op, field: field)
        let alias = related.alias
        let full = object["className"] != nil || object["where"] != nil
        func part(_ key: String) -> BoundSQL { BoundSQL(sql: "(") + pointer + BoundSQL(sql: " ->> '\(key)')") }
        var sql = BoundSQL(sql: "(") + part("__type") + BoundSQL(sql: " = 'Pointer' AND ")
        if full {
            let className = try readableClassName(object["className"], op: op, field: field)
            var onlyClass = BoundSQL(sql: " AND \(alias).class_name = ")
            onlyClass.append(bind: className)
            sql.append(part("className"))
            sql.append(sql: " = ")
            sql.append(bind: className)
            sql.append(sql: " AND ")
            sql.append(part("objectId"))
            sql.append(sql: " IN (")
            sql.append(
                try subQuery(
                    select: BoundSQL(sql: "\(alias).object_id"), onlyClass, where: object["where"] ?? .object([:]),
                    op: op, field: field))
        } else {
            // The shorthand's class is the one each stored pointer names, known only row by row: a caller
            // whose rights stop short of some class must name the one it means.
            guard related.rights == .master else {
                throw .forbidden(
                    "\(op) without a className reads whichever class '\(field)' points at, which may be a "
                        + "master-only class: name it ({\"className\", \"where\"}) or use the master key")
            }
            sql.append(sql: "(")
            sql.append(part("className"))
            sql.append(sql: ", ")
            sql.append(part("objectId"))
            sql.append(sql: ") IN (")
            sql.append(
                try subQuery(
                    select: BoundSQL(sql: "\(alias).class_name, \(alias).object_id"), BoundSQL(), where: operand,
                    op: op, field: field))
        }
        sql.append(sql: "))")
        return op == "$notInQuery" ? WhereCompiler.not(sql) : sql
    }

    /// `$select` / `$dontSelect`: the field's value equals the `key` of an object the sub-query matches.
    func select(_ operand: JSON, _ target: FieldTarget, op: String, field: String) throws(QueryError) -> BoundSQL {
        guard let object = operand.objectValue, Set(object.keys) == ["query", "key"],
            let query = object["query"]?.objectValue, let key = object["key"]?.stringValue
        else {
            throw .invalidQuery(
                "\(op) expects exactly {\"query\": {\"className\", \"where\"}, \"key\"} for field '\(field)'")
        }
        let related = try relatedContext(op: op, field: field)
        var onlyClass = BoundSQL(sql: " AND \(related.alias).class_name = ")
        onlyClass.append(bind: try readableClassName(query["className"], op: op, field: field))
        let inner = WhereCompiler(schema: related.schema, related: related.deeper)
        let selected = Self.jsonValue(try inner.target(for: try FieldPath(key)))
        var sql = Self.jsonValue(target) + BoundSQL(sql: " IN (")
        sql.append(
            try subQuery(select: selected, onlyClass, where: query["where"] ?? .object([:]), op: op, field: field))
        sql.append(sql: ")")
        return op == "$dontSelect" ? WhereCompiler.not(sql) : sql
    }

    /// `SELECT <columns> FROM objects relN WHERE app <class> AND (sub-where)`: uncorrelated, so the planner
    /// can drive it from the objects' indexes (a geo index, say) and hash or index-join the outer rows to it.
    private func subQuery(
        select columns: BoundSQL, _ classCondition: BoundSQL, where subWhere: JSON, op: String, field: String
    ) throws(QueryError) -> BoundSQL {
        let related = try relatedContext(op: op, field: field)
        guard case .object = subWhere else {
            throw .invalidQuery("\(op)'s where must be a JSON object (field '\(field)')")
        }
        let inner = WhereCompiler(schema: related.schema, related: related.deeper)
        var sql =
            BoundSQL(sql: "SELECT ") + columns
            + BoundSQL(sql: " FROM \(related.objectsTable) \(related.alias) WHERE \(related.alias).app_id = ")
        sql.append(bind: related.appId)
        sql.append(classCondition)
        sql.append(sql: " AND ")
        sql.append(try inner.compile(subWhere))
        return sql
    }

    private func relatedContext(op: String, field: String) throws(QueryError) -> RelatedClasses {
        guard let related else { throw .invalidQuery("\(op) is not available here (field '\(field)')") }
        guard related.level < 4 else {
            throw .invalidQuery("sub-queries nested deeper than 4 levels (field '\(field)')")
        }
        return related
    }

    /// The sub-query's class, checked against the caller's rights (119 for a master-only class).
    func readableClassName(_ value: JSON?, op: String, field: String) throws(QueryError) -> String {
        guard let name = value?.stringValue else {
            throw .invalidQuery("\(op) needs a className (field '\(field)')")
        }
        // The classes API's code for the same mistake.
        guard ClassName.isValid(name) else { throw QueryError(code: 103, message: "Invalid class name: \(name).") }
        guard name != "_Installation" else {
            throw .invalidQuery("\(op) cannot query _Installation (field '\(field)')")
        }
        guard try relatedContext(op: op, field: field).rights.mayRead(name) else {
            throw .forbidden("The master key is required to query \(name) (\(op) on field '\(field)').")
        }
        return name
    }

    /// The classes a `where` names in `$inQuery`/`$notInQuery`/`$select`/`$dontSelect`, so a caller can refuse
    /// a class that does not exist instead of silently matching nothing.
    public static func referencedClasses(_ value: JSON) -> Set<String> {
        Set(
            relatedOperands(value).compactMap { op, operand in
                ["$select", "$dontSelect"].contains(op)
                    ? operand["query"]?["className"]?.stringValue : operand["className"]?.stringValue
            })
    }

    /// Whether a `where` reads other classes at all (the seed's shorthand `$inQuery` names none), so a replay
    /// knows to fold objects to its instant.
    public static func readsOtherClasses(_ value: JSON) -> Bool { !relatedOperands(value).isEmpty }

    static let relatedOperators: Set<String> = ["$inQuery", "$notInQuery", "$select", "$dontSelect"]

    /// Every related operator in a `where`, at any depth, with its operand.
    static func relatedOperands(_ value: JSON) -> [(String, JSON)] {
        var found: [(String, JSON)] = []
        func walk(_ value: JSON) {
            switch value {
            case .object(let fields):
                for (key, inner) in fields {
                    if relatedOperators.contains(key) { found.append((key, inner)) }
                    walk(inner)
                }
            case .array(let items): items.forEach(walk)
            default: break
            }
        }
        walk(value)
        return found
    }

    /// The jsonb holding the Pointer: a real column can never hold one, nor a field whose type the schema
    /// declares as something else (`deviceToken`, or a class field inferred as a String).
    func pointerTarget(_ target: FieldTarget, op: String, field: String) throws(QueryError) -> BoundSQL {
        guard case .json(let expression) = target, schema.mayHoldPointer(field) else {
            throw .invalidQuery("\(op) needs a Pointer field; '\(field)' is not one")
        }
        return expression
    }

    /// A field as jsonb, for comparing values across tables.
    static func jsonValue(_ target: FieldTarget) -> BoundSQL {
        switch target {
        case .json(let expression): return expression
        case .column(_, let expression): return BoundSQL(sql: "to_jsonb(") + expression + BoundSQL(sql: ")")
        }
    }
}
