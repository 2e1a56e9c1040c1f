import Foundation
import Postgres

/// A private schema (`pushledger_replay_<random>`) holding the read-model tables as they stood at an instant.
/// It lives inside the caller's transaction and is dropped at the end; if anything fails, the rollback takes
/// it away too, so an interrupted replay leaves nothing behind and concurrent replays never share one.
public struct ReplayScratch: Sendable {
    /// The schema name: a trusted identifier made here, safe to splice into SQL.
    public let schema: String

    public var installations: String { "\(schema).installations" }
    public var apps: String { "\(schema).apps" }
    /// Objects of other classes at the instant; filled (by `ObjectFold`) only when a `where` reads them.
    public var objects: String { "\(schema).objects" }

    /// Creates the schema and empty copies of `apps`, `installations` and `invalid_tokens` (the tables the
    /// app and installation projections write) and a bare `objects` (keyed once filled, see `ObjectFold`). `indexedInstallations` keeps the live table's indexes, which
    /// a per-event fold needs for its row lookups; a set-based fold writes faster into a bare table.
    static func create(on conn: PGConnection, indexedInstallations: Bool) async throws -> ReplayScratch {
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let scratch = ReplayScratch(schema: "pushledger_replay_\(suffix)")
        let installationsLike = indexedInstallations ? "INCLUDING ALL" : "INCLUDING DEFAULTS INCLUDING GENERATED"
        try await conn.execute(
            unsafeScript: """
                CREATE SCHEMA \(scratch.schema);
                CREATE TABLE \(scratch.schema).apps (LIKE public.apps INCLUDING ALL);
                CREATE TABLE \(scratch.schema).invalid_tokens (LIKE public.invalid_tokens INCLUDING ALL);
                CREATE UNLOGGED TABLE \(scratch.installations) (LIKE public.installations \(installationsLike));
                CREATE UNLOGGED TABLE \(scratch.objects) (LIKE public.objects INCLUDING DEFAULTS);
                """)
        return scratch
    }

    func drop(on conn: PGConnection) async throws {
        try await conn.execute(unsafeScript: "DROP SCHEMA \(schema) CASCADE")
    }
}
