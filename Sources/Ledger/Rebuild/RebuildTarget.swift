import Postgres

/// Where a rebuild writes, prepared before the first event and finished after the last. Tables that only a fold
/// (`LogFoldingProjection`) or a summary (`LogSummarizingProjection.summaryTables`) fills are loaded with no index
/// at all; the others keep their unique indexes, which their projections' upserts and keyed updates need, and lose
/// the rest until the load is done (one sort each instead of a million insertions into a GIN index).
struct RebuildTarget {
    let schema: String
    /// The tables written, for `analyze`.
    private let tables: [String]
    /// Statements that make the dropped indexes and constraints again, run by `finish`.
    private let afterLoad: [String]

    /// Empty copies of the tables in the scratch schema, for `rebuild --verify` to compare with the live ones.
    /// Unlogged: they are dropped before the commit, so writing them to the WAL would be wasted.
    static func scratch(
        _ schema: String, tables: [String], unindexed: Set<String>, on conn: PGConnection
    ) async throws -> RebuildTarget {
        try await conn.execute(unsafeScript: "DROP SCHEMA IF EXISTS \(schema) CASCADE; CREATE SCHEMA \(schema)")
        for table in tables {
            try await conn.execute(
                unsafeScript: """
                    CREATE UNLOGGED TABLE \(schema).\(table) (LIKE public.\(table)
                        INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS INCLUDING IDENTITY)
                    """)
            if unindexed.contains(table) { continue }
            for index in try await indexes(of: table, on: conn) where index.unique {
                try await conn.execute(
                    unsafeScript: index.definition.replacingOccurrences(
                        of: " ON public.\(table) ", with: " ON \(schema).\(table) "))
            }
        }
        return RebuildTarget(schema: schema, tables: tables, afterLoad: [])
    }

    /// The live tables themselves, emptied by TRUNCATE: the rows are written once, not into a scratch copy
    /// and again into the table. The caller has locked them (`lock`); a failure rolls everything back.
    /// (TRUNCATE's one caveat: a REPEATABLE READ transaction that began before the commit and first reads the
    /// table after it sees it empty.)
    static func live(tables: [String], unindexed: Set<String>, on conn: PGConnection) async throws -> RebuildTarget {
        var afterLoad: [String] = []
        for table in tables {
            for index in try await indexes(of: table, on: conn)
            where index.constraint == nil || unindexed.contains(table) {
                if let constraint = index.constraint {
                    try await conn.execute(
                        unsafeScript: "ALTER TABLE public.\(table) DROP CONSTRAINT \"\(constraint)\"")
                    afterLoad.append(
                        "ALTER TABLE public.\(table) ADD CONSTRAINT \"\(constraint)\" \(index.constraintDefinition)")
                } else {
                    try await conn.execute(unsafeScript: "DROP INDEX public.\"\(index.name)\"")
                    afterLoad.append(index.definition)
                }
            }
            try await conn.execute(unsafeScript: "TRUNCATE public.\(table)")
        }
        return RebuildTarget(schema: "public", tables: tables, afterLoad: afterLoad)
    }

    /// Locks the live tables against every other writer and reader. Sent as the transaction's first statement,
    /// before its snapshot is taken: appends still running when the rebuild starts commit first (their inline
    /// projections write these tables) and are in its snapshot, and later ones wait for its commit, so the
    /// rebuilt tables lose no event.
    static func lock(_ tables: [String], on conn: PGConnection) async throws {
        let list = tables.map { "public.\($0)" }.joined(separator: ", ")
        try await conn.execute(unsafeScript: "LOCK TABLE \(list) IN ACCESS EXCLUSIVE MODE")
    }

    /// Makes the indexes and constraints dropped by `live` again.
    func finish(on conn: PGConnection) async throws {
        for statement in afterLoad { try await conn.execute(unsafeScript: statement) }
    }

    /// Gathers the planner's statistics of the written tables, committed with their rows. Without it the first
    /// statements after the commit are planned from what the tables held before (or, on a database restored
    /// from its log, from no statistics at all) until autovacuum gets to them, a minute or more later; a
    /// sample of each table takes well under a second even at millions of rows.
    func analyze(on conn: PGConnection) async throws {
        let list = tables.map { "\(schema).\($0)" }.joined(separator: ", ")
        try await conn.execute(unsafeScript: "ANALYZE \(list)")
    }

    private struct Index {
        let name: String
        let definition: String
        let unique: Bool
        /// The constraint that owns the index (a primary key, a unique constraint), if any.
        let constraint: String?
        let constraintDefinition: String
    }

    private static func indexes(of table: String, on conn: PGConnection) async throws -> [Index] {
        try await conn.query(
            """
            SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def, i.indisunique AS unique,
                k.conname AS constraint, coalesce(pg_get_constraintdef(k.oid), '') AS constraint_def
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            LEFT JOIN pg_constraint k ON k.conindid = i.indexrelid AND k.conrelid = i.indrelid
            WHERE i.indrelid = ('public.' || \(table))::regclass
            ORDER BY c.relname
            """
        ).map {
            Index(
                name: try $0.string("name"), definition: try $0.string("def"), unique: try $0.bool("unique"),
                constraint: $0["constraint"], constraintDefinition: try $0.string("constraint_def"))
        }
    }
}
