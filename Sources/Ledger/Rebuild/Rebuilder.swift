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
            // Memory for the sorts of the indexes `replace` makes again (a GIN index over a million rows).
            try await conn.execute(
                unsafeScript: """
                    SET LOCAL maintenance_work_mem = '512MB';
                    DROP SCHEMA IF EXISTS \(Self.schema) CASCADE; CREATE SCHEMA \(Self.schema)
                    """)
            for table in tables { try await createScratch(table, on: conn) }
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
                try await apply(events, on: conn)
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

    /// A page through each projection's `applyAll`, as group commit applies an append batch: the projections'
    /// set-based forms are what make a rebuild fast. Each projection writes only its own tables, so handing it
    /// its events of the page together gives what event-by-event application gives — except for `apps`, the
    /// one table others read (an app's time zone, for local days): the page is cut after every app event, so
    /// the events that follow one see it applied.
    private func apply(_ events: [RecordedEvent], on conn: PGConnection) async throws {
        var segment: [ProjectedEvent] = []
        func flush() async throws {
            for projection in projections {
                let handled = segment.filter { projection.handles($0.type) }
                if !handled.isEmpty { try await projection.applyAll(handled, on: conn, schema: Self.schema) }
            }
            segment.removeAll(keepingCapacity: true)
        }
        for event in events {
            segment.append(event.projected)
            if AppProjection().handles(event.type) { try await flush() }
        }
        try await flush()
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

    /// A scratch copy of `table` with its columns, defaults and checks and only its unique indexes: those are
    /// what the projections' upserts and keyed updates need, and every other index would only slow the load.
    /// Unlogged: it is dropped before the commit, so writing it to the WAL would be wasted.
    private func createScratch(_ table: String, on conn: PGConnection) async throws {
        try await conn.execute(
            unsafeScript: """
                CREATE UNLOGGED TABLE \(Self.schema).\(table) (LIKE public.\(table)
                    INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS INCLUDING IDENTITY)
                """)
        let unique = try await conn.query(
            """
            SELECT pg_get_indexdef(indexrelid) AS def FROM pg_index
            WHERE indrelid = ('public.' || \(table))::regclass AND indisunique
            """
        ).map { try $0.string("def") }
        for definition in unique {
            try await conn.execute(
                unsafeScript: definition.replacingOccurrences(
                    of: " ON public.\(table) ", with: " ON \(Self.schema).\(table) "))
        }
    }

    /// Replaces the live table's rows with the rebuilt ones. Indexes that no constraint owns are dropped and
    /// made again after the load (one sort each instead of a million insertions into a GIN index); the rows
    /// go by TRUNCATE. All inside the rebuild's transaction, under an exclusive lock: a failure leaves the
    /// table as it was. (TRUNCATE's one caveat: a REPEATABLE READ transaction that began before the commit and
    /// first reads the table after it sees it empty.)
    private func replace(_ table: String, on conn: PGConnection) async throws {
        let columns = try await conn.query(
            """
            SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) AS cols
            FROM information_schema.columns
            WHERE table_schema = 'public' AND table_name = \(table) AND is_generated = 'NEVER'
            """)[0].string("cols")
        try await conn.execute(unsafeScript: "LOCK TABLE public.\(table) IN ACCESS EXCLUSIVE MODE")
        let indexes = try await conn.query(
            """
            SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS def
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = ('public.' || \(table))::regclass
              AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
            """
        ).map { (try $0.string("name"), try $0.string("def")) }
        for (name, _) in indexes { try await conn.execute(unsafeScript: "DROP INDEX public.\"\(name)\"") }
        try await conn.execute(
            unsafeScript: """
                TRUNCATE public.\(table);
                INSERT INTO public.\(table) (\(columns)) SELECT \(columns) FROM \(Self.schema).\(table);
                """)
        for (_, definition) in indexes { try await conn.execute(unsafeScript: definition) }
    }
}
