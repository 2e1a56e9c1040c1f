import Foundation
import Logging
import Postgres
import PushCore

/// Rebuilds every projection from position 0 into a scratch schema (SPEC §7). With `verify`, it compares
/// the rebuilt tables with the live ones row for row and reports each difference; otherwise it replaces
/// the live tables' contents with the rebuilt ones. Everything happens in one REPEATABLE READ transaction,
/// so the log and the live tables are compared at the same snapshot.
public struct Rebuilder: Sendable {
    public struct TableDifference: Sendable, CustomStringConvertible {
        public let table: String
        public let onlyLive: [String]
        public let onlyRebuilt: [String]
        public var description: String {
            var s =
                "table \(table): \(onlyLive.count) row(s) only in the live table, "
                + "\(onlyRebuilt.count) only in the rebuild"
            for r in onlyLive { s += "\n  live:    \(r)" }
            for r in onlyRebuilt { s += "\n  rebuilt: \(r)" }
            return s
        }
    }

    public struct Report: Sendable {
        public let events: Int
        public let seconds: Double
        public let differences: [TableDifference]
        public var eventsPerSecond: Double { seconds > 0 ? Double(events) / seconds : 0 }
    }

    /// The log-retention step dropped old days of the log, so it no longer holds the beginning of every
    /// stream; a rebuild from it would lose (or, with `verify`, report) every row whose history began earlier.
    public struct LogTrimmed: Error, CustomStringConvertible {
        public let before: Date
        public var description: String {
            "the event log was trimmed: events before \(LeanDate.format(before)) were dropped by log retention, "
                + "so the projections cannot be rebuilt from it"
        }
    }

    public static let schema = "pushledger_rebuild"
    let store: EventStore
    let projections: [any Projection]
    let asyncProjectorNames: [String]
    let logger: Logger

    public init(
        store: EventStore, projections: [any Projection], asyncProjectorNames: [String] = [],
        logger: Logger = Logger(label: "pushledger.rebuild")
    ) {
        self.store = store
        self.projections = projections
        self.asyncProjectorNames = asyncProjectorNames
        self.logger = logger
    }

    /// - Parameter progress: called with (events applied so far, events in the log) after each batch; the total
    ///   is counted in the rebuild's own snapshot, so it is exact (and costs one scan, only when asked for).
    public func run(
        verify: Bool, batchSize: Int = 2000, progress: (@Sendable (Int, Int?) -> Void)? = nil
    )
        async throws -> Report
    {
        let started = Date()
        if let before = try await EventLogPartitions(pool: store.pool).trimmedBefore() {
            throw LogTrimmed(before: before)
        }
        let tables = projections.flatMap(\.tables)
        return try await store.pool.withTransaction(isolation: .repeatableRead) { conn in
            try await conn.execute(
                unsafeScript: "DROP SCHEMA IF EXISTS \(Self.schema) CASCADE; CREATE SCHEMA \(Self.schema)")
            for table in tables {
                try await conn.execute(
                    unsafeScript: "CREATE TABLE \(Self.schema).\(table) (LIKE public.\(table) INCLUDING ALL)")
            }
            var total: Int?
            if let progress {
                total = try await conn.query("SELECT count(*) AS n FROM events")[0].int("n")
                progress(0, total)
            }
            var checkpoint = Checkpoint.start
            var count = 0
            while true {
                let events = try await store.read(
                    after: checkpoint, limit: batchSize, belowOldestRunningTransaction: false, on: conn)
                guard let last = events.last else { break }
                for event in events {
                    for projection in projections where projection.handles(event.type) {
                        try await projection.apply(event.projected, on: conn, schema: Self.schema)
                    }
                }
                count += events.count
                checkpoint = last.checkpoint
                progress?(count, total)
            }
            var differences: [TableDifference] = []
            if verify {
                for table in tables {
                    let d = try await compare(table, on: conn)
                    if !d.onlyLive.isEmpty || !d.onlyRebuilt.isEmpty { differences.append(d) }
                }
            } else {
                for table in tables { try await replace(table, on: conn) }
                for name in asyncProjectorNames {
                    try await conn.query(
                        """
                        INSERT INTO projector_checkpoints (name, transaction_id, position) VALUES
                            (\(name), \(String(checkpoint.transactionId))::xid8, \(checkpoint.position))
                        ON CONFLICT (name) DO UPDATE SET transaction_id = excluded.transaction_id,
                            position = excluded.position, updated_at = now()
                        """)
                }
            }
            try await conn.execute(unsafeScript: "DROP SCHEMA \(Self.schema) CASCADE")
            return Report(events: count, seconds: Date().timeIntervalSince(started), differences: differences)
        }
    }

    private func compare(_ table: String, on conn: PGConnection) async throws -> TableDifference {
        func rows(_ a: String, _ b: String) async throws -> [String] {
            try await conn.query(
                PGQuery(
                    unsafeSQL: """
                        SELECT row_to_json(d)::text AS r FROM
                            (SELECT * FROM \(a).\(table) EXCEPT ALL SELECT * FROM \(b).\(table)) d
                        ORDER BY 1 LIMIT 20
                        """)
            ).map { try $0.string("r") }
        }
        return TableDifference(
            table: table, onlyLive: try await rows("public", Self.schema),
            onlyRebuilt: try await rows(Self.schema, "public"))
    }

    private func replace(_ table: String, on conn: PGConnection) async throws {
        let columns = try await conn.query(
            """
            SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) AS cols
            FROM information_schema.columns
            WHERE table_schema = 'public' AND table_name = \(table) AND is_generated = 'NEVER'
            """)[0].string("cols")
        try await conn.execute(
            unsafeScript: """
                LOCK TABLE public.\(table) IN ACCESS EXCLUSIVE MODE;
                DELETE FROM public.\(table);
                INSERT INTO public.\(table) (\(columns)) SELECT \(columns) FROM \(Self.schema).\(table);
                """)
    }
}
