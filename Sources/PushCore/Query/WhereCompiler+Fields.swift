extension WhereCompiler {
    func target(for path: FieldPath) throws(QueryError) -> FieldTarget {
        if let column = schema.columns[path.segments[0]] {
            guard path.segments.count == 1 else {
                throw .invalidQuery("field '\(path.segments[0])' has no subfields")
            }
            return .column(column, BoundSQL(sql: schema.qualified(column.name)))
        }
        var expression = BoundSQL(sql: "(" + schema.qualified(schema.dataColumn))
        for segment in path.segments {
            expression.append(sql: " -> ")
            expression.append(bind: segment)
            expression.append(sql: "::text")
        }
        expression.append(sql: ")")
        return .json(expression)
    }

    /// `{"field": value}` is equality (membership on arrays); `{"field": {"$op": operand, …}}` is an implicit AND
    /// of operators. An object that is not all operators is a value to compare with.
    func compileField(_ path: FieldPath, _ value: JSON) throws(QueryError) -> BoundSQL {
        let target = try target(for: path)
        guard case .object(let fields) = value, fields.keys.contains(where: { $0.hasPrefix("$") }) else {
            return try equals(target, QueryOperand(value, field: path.name), field: path.name)
        }
        guard fields.keys.allSatisfy({ $0.hasPrefix("$") }) else {
            throw .invalidQuery("field '\(path.name)' mixes operators and plain keys")
        }
        return try compileOperators(fields, target, path.name)
    }

    /// The implicit AND of one field's operators (`{"$gt": 1, "$lt": 5}`); also the operand of `$not`.
    private func compileOperators(
        _ fields: [String: JSON], _ target: FieldTarget, _ field: String
    ) throws(QueryError) -> BoundSQL {
        if fields["$options"] != nil, fields["$regex"] == nil {
            throw .invalidQuery("$options without $regex on field '\(field)'")
        }
        var conditions: [BoundSQL] = []
        if fields["$nearSphere"] != nil {
            conditions.append(try nearSphere(fields, target, field: field))
        } else if let companion = fields.keys.first(where: WhereCompiler.nearSphereCompanions.contains) {
            throw .invalidQuery("\(companion) without $nearSphere on field '\(field)'")
        }
        for op in fields.keys.sorted() where op != "$nearSphere" && !WhereCompiler.nearSphereCompanions.contains(op) {
            if let condition = try compileOperator(op, fields[op]!, options: fields["$options"], target, field) {
                conditions.append(condition)
            }
        }
        return WhereCompiler.combine(conditions, with: "AND", empty: "TRUE")
    }

    private func compileOperator(
        _ op: String, _ operand: JSON, options: JSON?, _ target: FieldTarget, _ field: String
    ) throws(QueryError) -> BoundSQL? {
        switch op {
        case "$eq":
            return try equals(target, QueryOperand(operand, field: field), field: field)
        case "$ne":
            return WhereCompiler.not(try equals(target, QueryOperand(operand, field: field), field: field))
        case "$lt", "$lte", "$gt", "$gte":
            return try compare(target, WhereCompiler.comparisons[op]!, operand, op: op, field: field)
        case "$in":
            return try anyOf(target, operand, op: op, field: field)
        case "$nin":
            return WhereCompiler.not(try anyOf(target, operand, op: op, field: field))
        case "$all":
            let values = try WhereCompiler.list(operand, op: op, field: field)
            var parts: [BoundSQL] = []
            for value in values { parts.append(try equals(target, QueryOperand(value, field: field), field: field)) }
            // MongoDB: `$all: []` matches nothing.
            return WhereCompiler.combine(parts, with: "AND", empty: "FALSE")
        case "$exists":
            guard let exists = operand.boolValue else {
                throw .invalidQuery("$exists expects true or false for field '\(field)', not \(operand.typeName)")
            }
            return self.exists(target, exists)
        case "$size":
            guard let size = operand.intValue, size >= 0, size <= Int64(Int32.max) else {
                throw .invalidQuery("$size expects a non-negative integer for field '\(field)'")
            }
            return self.size(target, size)
        case "$regex":
            guard let pattern = operand.stringValue else {
                throw .invalidQuery("$regex expects a string for field '\(field)', not \(operand.typeName)")
            }
            var optionText = ""
            if let options {
                guard let text = options.stringValue else {
                    throw .invalidQuery("$options expects a string for field '\(field)', not \(options.typeName)")
                }
                optionText = text
            }
            let translated = try RegexTranslator.translate(pattern: pattern, options: optionText, field: field)
            return try regex(target, translated, field: field)
        case "$options":
            return nil  // read together with $regex
        case "$not":
            // MongoDB's field-level $not: the negation of an operator expression, so a missing field (a NULL
            // condition) is included, as with $ne/$nin.
            guard case .object(let inner) = operand else {
                throw .invalidQuery("$not expects an object of operators for field '\(field)', not \(operand.typeName)")
            }
            guard !inner.isEmpty, inner.keys.allSatisfy({ $0.hasPrefix("$") }) else {
                throw .invalidQuery(
                    "$not expects an object of operators for field '\(field)', such as {\"$regex\": \"^a\"}")
            }
            return WhereCompiler.not(try compileOperators(inner, target, field))
        case "$within":
            return try within(operand, target, field: field)
        case "$geoWithin":
            return try geoWithin(operand, target, field: field)
        case "$inQuery", "$notInQuery":
            return try inQuery(operand, target, op: op, field: field)
        case "$select", "$dontSelect":
            return try select(operand, target, op: op, field: field)
        default:
            throw .invalidQuery("unknown operator \(FieldPath.shown(op)) on field '\(field)'")
        }
    }

    static let comparisons = ["$lt": "<", "$lte": "<=", "$gt": ">", "$gte": ">="]

    private func anyOf(
        _ target: FieldTarget, _ operand: JSON, op: String, field: String
    ) throws(QueryError) -> BoundSQL {
        let values = try WhereCompiler.list(operand, op: op, field: field)
        var parts: [BoundSQL] = []
        for value in values { parts.append(try equals(target, QueryOperand(value, field: field), field: field)) }
        // One equality per value rather than one array parameter: each stays an index-friendly containment test.
        return WhereCompiler.combine(parts, with: "OR", empty: "FALSE")
    }

    static func list(_ operand: JSON, op: String, field: String) throws(QueryError) -> [JSON] {
        guard let values = operand.arrayValue else {
            throw .invalidQuery("\(op) expects an array for field '\(field)', not \(operand.typeName)")
        }
        return values
    }

    /// Negation that never turns an unknown (NULL) comparison into a match: `$ne`/`$nin` match missing fields.
    static func not(_ condition: BoundSQL) -> BoundSQL {
        sql("NOT COALESCE(\(condition), FALSE)")
    }

    private func equals(_ target: FieldTarget, _ operand: QueryOperand, field: String) throws(QueryError) -> BoundSQL {
        switch target {
        case .json(let value): return jsonEquals(value, operand)
        case .column(let column, let value): return try columnEquals(value, column, operand, field: field)
        }
    }

    private func compare(
        _ target: FieldTarget, _ sqlOperator: String, _ operand: JSON, op: String, field: String
    ) throws(QueryError) -> BoundSQL {
        let value = try QueryOperand(operand, field: field)
        switch value {
        case .scalar(.string), .scalar(.int), .scalar(.double), .date: break
        default:
            throw .invalidQuery("\(op) expects a number, string or Date for field '\(field)', not \(operand.typeName)")
        }
        switch target {
        case .json(let json): return jsonCompare(json, sqlOperator, value)
        case .column(let column, let expression):
            return try columnCompare(expression, column, sqlOperator, value, field: field)
        }
    }

    private func exists(_ target: FieldTarget, _ exists: Bool) -> BoundSQL {
        switch target {
        case .json(let value): return jsonExists(value, exists)
        case .column(_, let value): return value + BoundSQL(sql: exists ? " IS NOT NULL" : " IS NULL")
        }
    }

    private func size(_ target: FieldTarget, _ size: Int64) -> BoundSQL {
        switch target {
        case .json(let value): return jsonSize(value, size)
        case .column: return BoundSQL(sql: "FALSE")  // a column never holds an array
        }
    }

    private func regex(_ target: FieldTarget, _ pattern: String, field: String) throws(QueryError) -> BoundSQL {
        switch target {
        case .json(let value): return jsonRegex(value, pattern)
        case .column(let column, let value): return try columnRegex(value, column, pattern, field: field)
        }
    }
}
