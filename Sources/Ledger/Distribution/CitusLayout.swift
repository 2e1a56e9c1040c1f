import Foundation
import Postgres

/// The ledger's tables on Citus (docs/scaling.md): every table with an `app_id` column is distributed by it,
/// co-located with `events`, so all of an app's rows live on one worker and every statement of a request runs
/// there; `apps` and `channel_heartbeats` are reference tables (a copy on every node); the tables that know no
/// app (the migrations, the log's trims, PostGIS' reference systems) stay on the coordinator.
public enum CitusLayout {
    /// Read by nearly every statement and written only by `app create`/`app set`; the heartbeats have no app.
    public static let referenceTables = ["apps", "channel_heartbeats"]

    /// What `distribute` did: the tables it distributed or made reference tables (none when the database was
    /// distributed already and no migration had added a table since).
    public struct Report: Sendable, Equatable {
        public var distributed: [String] = []
        public var reference: [String] = []
    }

    public struct NotCitus: Error, CustomStringConvertible {
        public var description: String {
            "the citus extension is not installed in this database: create it, register the workers "
                + "(docs/scaling.md) and run distribute again"
        }
    }

    public struct SchemaBehind: Error, CustomStringConvertible {
        public let applied: Int
        public let shipped: Int
        public var description: String {
            "the schema is at migration \(applied) and this binary ships \(shipped): run migrate first"
        }
    }

    /// Whether the database runs on Citus with the log distributed.
    public static func isDistributed(on db: some PGQuerying) async throws -> Bool {
        guard try await hasCitus(on: db) else { return false }
        return try await db.query(
            "SELECT EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'events'::regclass) AS d")[0].bool("d")
    }

    static func hasCitus(on db: some PGQuerying) async throws -> Bool {
        try await db.query("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS c")[0].bool("c")
    }

    /// Distributes a migrated database as the layout says; run again after a migration added a table, it
    /// distributes just that table (`migrate` does so by itself on a distributed database). Each step commits
    /// on its own: Citus creates a table's shards outside the caller's transaction.
    /// - Parameter shardCount: shards per distributed table (Citus' `citus.shard_count`, 32, by default).
    @discardableResult
    public static func distribute(pool: PGPool, shardCount: Int? = nil) async throws -> Report {
        try await pool.withConnection { conn in
            guard try await hasCitus(on: conn) else { throw NotCitus() }
            let shipped = try LedgerMigrations.all().map(\.version).max() ?? 0
            let applied = try await conn.query("SELECT coalesce(max(version), 0) AS v FROM schema_migrations")[0].int(
                "v")
            guard applied >= shipped else { throw SchemaBehind(applied: applied, shipped: shipped) }
            // The log's triggers (append-only, the stream heads) run on the shards; Citus creates a distributed
            // table's triggers, and later day partitions' own, only with this on, so every session gets it.
            let database = try await conn.query("SELECT current_database() AS d")[0].string("d")
            // One statement at a time, here and below: Citus passes a DDL statement on to the workers in the text it
            // came in, which they refuse to prepare when it holds several.
            try await conn.execute(
                unsafeScript: "ALTER DATABASE \(quoted(database)) SET citus.enable_unsafe_triggers = on")
            try await conn.execute(unsafeScript: "SET citus.enable_unsafe_triggers = on")
            if let shardCount { try await conn.execute(unsafeScript: "SET citus.shard_count = \(shardCount)") }
            var report = Report()
            let done = Set(
                try await conn.query(
                    """
                    SELECT c.relname AS t FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
                    WHERE c.relnamespace = 'public'::regnamespace
                    """
                ).map { try $0.string("t") })
            for table in referenceTables where !done.contains(table) {
                try await conn.query("SELECT create_reference_table(\(table))")
                try await dropLocalCopy(of: table, on: conn)
                report.reference.append(table)
            }
            // `events` first: the others are co-located with it.
            let tenant = try await tenantTables(on: conn)
            for table in ["events"] + tenant.filter({ $0 != "events" }) where !done.contains(table) {
                if table == "events" {
                    try await conn.query("SELECT create_distributed_table('events', 'app_id')")
                } else {
                    try await conn.query(
                        "SELECT create_distributed_table(\(table), 'app_id', colocate_with => 'events')")
                }
                try await dropLocalCopy(of: table, on: conn)
                report.distributed.append(table)
            }
            if report.distributed.contains("events") { try await distributeLogFunctions(on: conn) }
            return report
        }
    }

    /// Citus copies a populated table's rows to its shards and leaves them in the coordinator's own table as
    /// well, where nothing reads them; they are emptied. The log's TRUNCATE guard is a trigger, which a session
    /// in replica mode does not fire (distributing needs a superuser anyway).
    static func dropLocalCopy(of table: String, on conn: PGConnection) async throws {
        try await conn.execute(unsafeScript: "SET session_replication_role = replica")
        try await conn.query("SELECT truncate_local_data_after_distributing_table(\("public." + table)::regclass)")
        try await conn.execute(unsafeScript: "RESET session_replication_role")
    }

    /// The tables with an `app_id` column (partitions of the log aside: they go with `events`), reference
    /// tables excepted.
    static func tenantTables(on conn: PGConnection) async throws -> [String] {
        try await conn.query(
            """
            SELECT c.relname FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
            WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
              AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'app_id'
                          AND NOT a.attisdropped)
              AND c.relname <> ALL(\(referenceTables)::text[])
            ORDER BY c.relname
            """
        ).map { try $0.string("relname") }
    }

    /// What makes the log's guarantees hold where an app's rows live (SPEC §7):
    /// - an event's `transaction_id` is its worker's transaction id, not the coordinator's (Citus evaluates a
    ///   column default on the coordinator), so that a reader of the app compares it with that worker's snapshot;
    /// - the stream locks are taken on the app's worker, inside the transaction (`force_delegation`), where the
    ///   check that they come before any write sees the worker's own transaction.
    static func distributeLogFunctions(on conn: PGConnection) async throws {
        try await conn.execute(
            unsafeScript: """
                CREATE OR REPLACE FUNCTION events_worker_transaction_id() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    NEW.transaction_id := pg_current_xact_id();
                    RETURN NEW;
                END $$
                """)
        try await conn.execute(
            unsafeScript: """
                CREATE TRIGGER events_worker_transaction_id BEFORE INSERT ON events
                    FOR EACH ROW EXECUTE FUNCTION events_worker_transaction_id()
                """)
        try await conn.query(
            """
            SELECT create_distributed_function('pushledger_lock_streams(text,text[])', 'app',
                                               colocate_with => 'events', force_delegation => true)
            """)
    }

    private static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
