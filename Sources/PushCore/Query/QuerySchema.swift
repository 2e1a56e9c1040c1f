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

    public init(dataColumn: String, columns: [String: Column], tiebreakColumn: String, tableAlias: String? = nil) {
        precondition(QuerySchema.isSQLIdentifier(dataColumn) && QuerySchema.isSQLIdentifier(tiebreakColumn))
        precondition(tableAlias.map(QuerySchema.isSQLIdentifier) ?? true)
        self.dataColumn = dataColumn
        self.columns = columns
        self.tiebreakColumn = tiebreakColumn
        self.tableAlias = tableAlias
    }

    /// The same schema with every column qualified by `alias`.
    public func aliased(_ alias: String?) -> QuerySchema {
        QuerySchema(dataColumn: dataColumn, columns: columns, tiebreakColumn: tiebreakColumn, tableAlias: alias)
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
