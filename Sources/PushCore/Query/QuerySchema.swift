/// Where the fields of one LeanCloud class live in PostgreSQL, so the same `WhereCompiler` can serve several tables:
/// a jsonb column holding the object's fields, plus the fields that exist only as real typed columns (`objectId`,
/// `createdAt`, `updatedAt`). All names here are written by us in source, never taken from input.
public struct QuerySchema: Sendable, Hashable {
    /// The SQL type of a real column, which decides the casts and which operators make sense.
    public enum ColumnType: Sendable, Hashable {
        case text
        case bigint
        case doublePrecision
        case boolean
        case timestamptz
    }

    /// A LeanCloud field stored in a real column.
    public struct Column: Sendable, Hashable {
        public let name: String
        public let type: ColumnType

        public init(_ name: String, _ type: ColumnType) {
            precondition(QuerySchema.isSQLIdentifier(name), "column names are trusted identifiers")
            self.name = name
            self.type = type
        }
    }

    /// The jsonb column with every field not listed in `columns`.
    public let dataColumn: String
    /// LeanCloud field name → column.
    public let columns: [String: Column]
    /// The column that makes any ordering total (`object_id`); compiled `order` lists always end with it.
    public let tiebreakColumn: String
    /// Qualifies every column (`i.data`) when the query joins other tables.
    public let tableAlias: String?
    /// The types some top-level jsonb fields are known to have (the `_Installation` fields SPEC §3 defines, a
    /// class's inferred field types): operators that need another type (`$inQuery` a Pointer) are refused on
    /// them whatever their operand, instead of compiling to a condition that can never match.
    public let declaredTypes: [String: FieldType]

    public init(
        dataColumn: String, columns: [String: Column], tiebreakColumn: String, tableAlias: String? = nil,
        declaredTypes: [String: FieldType] = [:]
    ) {
        precondition(QuerySchema.isSQLIdentifier(dataColumn) && QuerySchema.isSQLIdentifier(tiebreakColumn))
        precondition(tableAlias.map(QuerySchema.isSQLIdentifier) ?? true)
        self.dataColumn = dataColumn
        self.columns = columns
        self.tiebreakColumn = tiebreakColumn
        self.tableAlias = tableAlias
        self.declaredTypes = declaredTypes
    }

    /// The same schema with every column qualified by `alias`.
    public func aliased(_ alias: String?) -> QuerySchema {
        QuerySchema(
            dataColumn: dataColumn, columns: columns, tiebreakColumn: tiebreakColumn, tableAlias: alias,
            declaredTypes: declaredTypes)
    }

    /// The same schema knowing `types` too (a class's inferred field types, read before its listing).
    public func declaring(_ types: [String: FieldType]) -> QuerySchema {
        QuerySchema(
            dataColumn: dataColumn, columns: columns, tiebreakColumn: tiebreakColumn, tableAlias: tableAlias,
            declaredTypes: declaredTypes.merging(types) { _, new in new })
    }

    /// Whether `field` (a dotted path's full name) may hold a Pointer: not when its declared type is another.
    func mayHoldPointer(_ field: String) -> Bool {
        guard let declared = declaredTypes[field] else { return true }
        if case .pointer = declared { return true }
        return false
    }

    /// `alias.column` or `column`.
    func qualified(_ column: String) -> String {
        tableAlias.map { "\($0).\(column)" } ?? column
    }

    /// Lower-case SQL identifiers only, so names can be written unquoted.
    static func isSQLIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) || first == 95
        else { return false }
        return name.utf8.allSatisfy {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "_")
        }
    }
}
