import Foundation

/// One versioned migration file, `NNNN_name.sql`.
public struct PGMigration: Sendable {
    public let version: Int
    public let name: String
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// Reads `NNNN_name.sql` files from a directory, ordered by version.
    public static func load(from directory: URL) throws -> [PGMigration] {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        var out: [PGMigration] = []
        for file in files where file.hasSuffix(".sql") {
            let stem = String(file.dropLast(4))
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]) else { continue }
            let sql = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            out.append(PGMigration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: sql))
        }
        return out.sorted { $0.version < $1.version }
    }
}

/// Applies migrations once each, recording an md5 checksum computed by the server. An applied migration
/// whose file has since changed is refused: history is not rewritten silently.
public struct PGMigrator: Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case changed(version: Int, name: String)
        public var description: String {
            switch self {
            case .changed(let version, let name):
                return "migration \(version)_\(name) was changed after it was applied; write a new migration instead"
            }
        }
    }

    let pool: PGPool

    public init(pool: PGPool) { self.pool = pool }

    /// Returns the versions applied by this call.
    @discardableResult
    public func migrate(_ migrations: [PGMigration]) async throws -> [Int] {
        try await pool.withTransaction { conn in
            // Serialise concurrent `migrate` runs (several processes starting at once).
            try await conn.query("SELECT pg_advisory_xact_lock(7461736)")
            try await conn.execute(
                unsafeScript: """
                    CREATE TABLE IF NOT EXISTS schema_migrations (
                        version integer PRIMARY KEY,
                        name text NOT NULL,
                        checksum text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """)
            let rows = try await conn.query("SELECT version, checksum FROM schema_migrations")
            var applied: [Int: String] = [:]
            for row in rows { applied[try row.int("version")] = try row.string("checksum") }
            var done: [Int] = []
            for m in migrations {
                let sum = try await conn.query("SELECT md5(\(m.sql)) AS sum")[0].string("sum")
                if let existing = applied[m.version] {
                    if existing != sum { throw Failure.changed(version: m.version, name: m.name) }
                    continue
                }
                try await conn.execute(unsafeScript: m.sql)
                try await conn.query(
                    "INSERT INTO schema_migrations (version, name, checksum) VALUES (\(m.version), \(m.name), \(sum))")
                done.append(m.version)
            }
            return done
        }
    }
}
