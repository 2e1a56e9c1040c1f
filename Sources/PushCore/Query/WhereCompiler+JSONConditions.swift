/// Conditions on a jsonb field `f`, which is SQL NULL when the field is missing. Each works on a scalar and on an
/// array alike, because the compiler cannot know which one a row holds.
extension WhereCompiler {
    /// Equality. Scalars and Pointers use jsonb containment, which PostgreSQL defines so that `["a","b"] @> "a"`
    /// holds: one test covers "equals" and "is an element of", and it can use a GIN index on the field expression
    /// (`CREATE INDEX … USING gin ((data -> 'channels'))`) or on `data` itself.
    func jsonEquals(_ f: BoundSQL, _ operand: QueryOperand) -> BoundSQL {
        switch operand {
        case .null:
            // MongoDB: null matches a missing field, a null value, and an array holding null.
            return sql("COALESCE(\(f) @> 'null'::jsonb, TRUE)")
        case .scalar(let value):
            return sql("(\(f) @> \(bind: value.encoded())::jsonb)")
        case .pointer(let pointer):
            // Containment only unwraps arrays for scalars, so an array of pointers needs its own test.
            let inArray = JSON.array([pointer]).encoded()
            return sql("(\(f) @> \(bind: pointer.encoded())::jsonb OR \(f) @> \(bind: inArray)::jsonb)")
        case .date(let iso):
            return anyElement(of: f, where: sql("\(WhereCompiler.elementInstant) = \(bind: iso)::timestamptz"))
        case .composite(let value):
            // Containment would accept supersets; other objects and arrays must be exactly equal, as a whole or
            // as an element.
            let text = value.encoded()
            let element = sql("pl_elem.v = \(bind: text)::jsonb")
            return sql("(\(f) = \(bind: text)::jsonb OR \(anyElement(of: f, where: element)))")
        }
    }

    /// `$lt`… on numbers (numerically) and strings (by code point, i.e. "C" collation): a jsonpath filter, whose
    /// comparisons are false across types, so `"10"` is never compared with `9`. Dates compare as instants.
    func jsonCompare(_ f: BoundSQL, _ sqlOperator: String, _ operand: QueryOperand) -> BoundSQL {
        switch operand {
        case .date(let iso):
            let comparison = BoundSQL(sql: sqlOperator)
            let condition = sql("\(WhereCompiler.elementInstant) \(comparison) \(bind: iso)::timestamptz")
            return anyElement(of: f, where: condition)
        case .scalar(let value):
            let path = BoundSQL(sql: "'lax $[*] ? (@ \(sqlOperator) $v)'")
            return sql("jsonb_path_exists(\(f), \(path), jsonb_build_object('v', \(bind: value.encoded())::jsonb))")
        default:
            preconditionFailure("compare() admits numbers, strings and dates only")
        }
    }

    /// A JSON null counts as absent, as LeanCloud shows a field set to null as unset.
    func jsonExists(_ f: BoundSQL, _ exists: Bool) -> BoundSQL {
        sql("(COALESCE(jsonb_typeof(\(f)), 'null') \(BoundSQL(sql: exists ? "<>" : "=")) 'null')")
    }

    func jsonSize(_ f: BoundSQL, _ size: Int64) -> BoundSQL {
        // CASE, not AND: PostgreSQL may evaluate AND operands in any order, and jsonb_array_length raises on scalars.
        let length = sql("CASE WHEN jsonb_typeof(\(f)) = 'array' THEN jsonb_array_length(\(f)) END")
        return sql("(\(length) = \(bind: String(size))::integer)")
    }

    /// Matches when the field, or any element of it, is a string matching the (already translated) ARE.
    func jsonRegex(_ f: BoundSQL, _ pattern: String) -> BoundSQL {
        let matches = sql("jsonb_typeof(pl_elem.v) = 'string' AND (pl_elem.v #>> '{}') ~ \(regex: pattern)::text")
        return anyElement(of: f, where: matches)
    }

    /// `EXISTS` over the field's elements as `pl_elem.v`: lax `$[*]` yields the elements of an array, a scalar or
    /// object itself, and nothing for a missing field. The odd alias keeps clear of the caller's table aliases.
    func anyElement(of f: BoundSQL, where condition: BoundSQL) -> BoundSQL {
        sql("EXISTS (SELECT 1 FROM jsonb_path_query(\(f), 'lax $[*]') AS pl_elem(v) WHERE \(condition))")
    }

    /// The instant of `pl_elem.v` when it is a `{"__type":"Date","iso":…}`, else NULL. Nothing normalises dates
    /// stored in custom fields, and one failing cast would abort the whole query for every row, so the text is
    /// checked first — shape by regex, then the day against the month's length — in nested CASEs, whose order
    /// PostgreSQL guarantees (AND operands may run in any order). Text without a zone is UTC, as in `LeanDate`.
    static let elementInstant: BoundSQL = {
        let iso = "(pl_elem.v ->> 'iso')"
        let year = "substr(\(iso), 1, 4)::int"
        let month = "substr(\(iso), 6, 2)::int"
        let day = "substr(\(iso), 9, 2)::int"
        let leap = "(\(year) % 4 = 0 AND \(year) % 100 <> 0 OR \(year) % 400 = 0)"
        let lastDay =
            "CASE WHEN \(month) = 2 THEN CASE WHEN \(leap) THEN 29 ELSE 28 END "
            + "WHEN \(month) IN (4, 6, 9, 11) THEN 30 ELSE 31 END"
        let zoned = #"[T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d(:?\d\d)?)$"#
        return BoundSQL(
            sql: "(CASE WHEN pl_elem.v ->> '__type' = 'Date' AND \(iso) ~ '\(isoPattern)' "
                + "THEN CASE WHEN \(day) <= \(lastDay) "
                + "THEN CASE WHEN \(iso) ~ '\(zoned)' THEN \(iso)::timestamptz "
                + "ELSE \(iso)::timestamp AT TIME ZONE 'UTC' END END END)"
        )
    }()

    /// Years 0001–9999 (PostgreSQL has no year 0), real months and days; optional time, fraction and zone.
    static let isoPattern =
        #"^(000[1-9]|00[1-9]\d|0[1-9]\d\d|[1-9]\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"#
        + #"([T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3])(:?[0-5]\d)?)?)?$"#
}
