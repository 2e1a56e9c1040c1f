import Logging
import Postgres
import PushCore

/// The indexes related and geo targeting need on objects of other classes (issue 16): a GiST index over
/// `pl_geography` for every GeoPoint field and a btree over the pointed objectId for every Pointer field that
/// `class_fields` knows of. They are expressions on the field's name, shared by every class and app that has
/// a field of that name and type, so their number follows the field names, not the data. Built
/// `CONCURRENTLY`, so writes go on while a first million points are indexed; one process at a time (an
/// advisory lock), and an index a failed build left invalid is dropped and built again.
public struct FieldIndexes: Sendable {
    let pool: PGPool
    let logger: Logger

    public init(pool: PGPool, logger: Logger = Logger(label: "pushledger.indexes")) {
        self.pool = pool
        self.logger = logger
    }

    /// One wanted index: its name and the statement that builds it.
    struct Wanted: Equatable {
        let name: String
        let statement: String
    }

    /// Arbitrary, fixed: the advisory lock key of index maintenance.
    public static let lockKey: Int64 = 0x5055_5348_4944_5831

    /// Builds the missing indexes; returns the names built. Does nothing (and returns none) while another
    /// process holds the lock.
    @discardableResult
    public func ensure() async throws -> [String] {
        try await pool.withConnection { conn in
            guard try await conn.query("SELECT pg_try_advisory_lock(\(Self.lockKey)) AS ok")[0].bool("ok") else {
                return []
            }
            do {
                let built = try await build(on: conn)
                try await conn.query("SELECT pg_advisory_unlock(\(Self.lockKey))")
                return built
            } catch {
                _ = try? await conn.query("SELECT pg_advisory_unlock(\(Self.lockKey))")
                throw error
            }
        }
    }

    private func build(on conn: PGConnection) async throws -> [String] {
        let fields = try await conn.query("SELECT DISTINCT field, type FROM class_fields ORDER BY field, type")
        let wanted = try fields.compactMap { try Self.wanted(field: $0.string("field"), type: $0.string("type")) }
        guard !wanted.isEmpty else { return [] }
        let existing = try await conn.query(
            """
            SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = 'objects'::regclass AND c.relname = ANY(\(wanted.map(\.name))::text[])
            """)
        var valid = Set<String>()
        for row in existing {
            let name = try row.string("name")
            if try row.bool("valid") {
                valid.insert(name)
            } else {
                logger.warning("dropping index \(name), left invalid by a failed build")
                try await conn.execute(unsafeScript: "DROP INDEX CONCURRENTLY IF EXISTS \"\(name)\"")
            }
        }
        var built: [String] = []
        for index in wanted where !valid.contains(index.name) {
            logger.info("building index \(index.name)")
            try await conn.execute(unsafeScript: index.statement)
            built.append(index.name)
        }
        return built
    }

    /// The index a field of this type wants; nil for types no operator reads through an index, and for field
    /// names that could not be spliced into DDL as a literal (the classes API refuses such names anyway).
    static func wanted(field: String, type: String) -> Wanted? {
        guard isPlainName(field) else { return nil }
        switch FieldType(stored: type) {
        case .geoPoint:
            // The expression the compiler's `$nearSphere`, `$centerSphere` and `ST_DWithin` read.
            let name = "objects_geo_\(field)"
            return Wanted(
                name: name,
                statement: "CREATE INDEX CONCURRENTLY IF NOT EXISTS \"\(name)\" ON objects "
                    + "USING gist (pl_geography(data -> '\(field)'))")
        case .pointer:
            // What an `$inQuery` over this class joins on.
            let name = "objects_ptr_\(field)"
            return Wanted(
                name: name,
                statement: "CREATE INDEX CONCURRENTLY IF NOT EXISTS \"\(name)\" ON objects "
                    + "(app_id, class_name, (data -> '\(field)' ->> 'objectId'))")
        default:
            return nil
        }
    }

    /// ASCII letters, digits and `_`, starting with a letter, short enough that the index name (quoted, so
    /// `homeLocation` and `homelocation` stay apart) fits PostgreSQL's 63 bytes.
    static func isPlainName(_ field: String) -> Bool {
        guard let first = field.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic, field.count <= 40
        else { return false }
        return field.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_")
        }
    }
}
