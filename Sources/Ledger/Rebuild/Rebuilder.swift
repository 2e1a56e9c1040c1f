import Foundation
import Logging
import Postgres
import PushCore

/// Rebuilds every projection from position 0 (SPEC §7), in one REPEATABLE READ transaction. The projections
/// that can (`LogFoldingProjection`: installations, objects) are folded from the whole log by set-based
/// statements inside PostgreSQL; the events the others handle are read in log order, a page at a time, through
/// their `applyAll`, except those the `LogSummarizingProjection`s summarise meanwhile on a connection of their
/// own (push opens), whose summaries are written after the pages. With `verify`, everything goes into a scratch
/// schema and is compared with the live tables row for row at the same snapshot, each difference reported;
/// otherwise the live tables are locked, emptied and written directly.
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
        /// Where the time went, in order: `prepare` (locks, counts, emptied or scratch tables), `folds` (the
        /// set-based statements), `pages` (the per-event pass after them, and any wait for the summaries to be
        /// made), `summaries` (writing what `LogSummarizingProjection`s summarised meanwhile), then `indexes`
        /// and `statistics` (live: the indexes and constraints made again, the tables analyzed) or `compare`
        /// (verify). Each is also logged (debug) as it ends.
        public let phases: [(name: String, seconds: Double)]
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

    /// - Parameter progress: called with (events rebuilt so far, events in the log) after each step. The total is
    ///   counted in the rebuild's own snapshot, so it is exact; the folds count as done when they end.
    public func run(
        verify: Bool, batchSize: Int = 2000, progress: (@Sendable (Int, Int?) -> Void)? = nil
    )
        async throws -> Report
    {
        let started = Date()
        if let before = try await EventLogPartitions(pool: store.pool).trimmedBefore() {
            throw LogTrimmed(before: before)
        }
        if try await CitusLayout.isDistributed(on: store.pool) {
            return try await runPerApp(verify: verify, batchSize: batchSize, started: started, progress: progress)
        }
        let tables = projections.flatMap(\.tables)
        let folding = projections.compactMap { $0 as? any LogFoldingProjection }
        let perEvent = projections.filter { !($0 is any LogFoldingProjection) }
        let summarizing = perEvent.compactMap { $0 as? any LogSummarizingProjection }
        // The page pass skips summarised events for every projection: each that handles them must summarise them.
        let summarized = summarizing.map(\.summarizedEvents).reduce(into: [SummarizedEvents]()) { all, events in
            if !all.contains(events) { all.append(events) }
        }
        for events in summarized {
            for projection in perEvent where projection.handles(events.type) {
                precondition(
                    (projection as? any LogSummarizingProjection)?.summarizedEvents == events,
                    "\(projection.name) handles \(events.type) but does not summarise what the rebuild skips")
            }
        }
        // Tables only folds or summaries write: loaded without indexes.
        let unindexed = Set(folding.flatMap(\.tables) + summarizing.flatMap(\.summaryTables))
        // Events only folds read stay in PostgreSQL; the page pass reads the others.
        let foldedOnly = Set(folding.flatMap(\.eventTypes)).filter { t in !perEvent.contains { $0.handles(t) } }
            .sorted()
        return try await store.pool.withTransaction(isolation: .repeatableRead) { conn in
            var phases: [(name: String, seconds: Double)] = []
            var phaseStarted = started
            func endPhase(_ name: String) {
                let now = Date()
                let seconds = now.timeIntervalSince(phaseStarted)
                phases.append((name, seconds))
                logger.debug(
                    "rebuild phase done",
                    metadata: ["phase": "\(name)", "seconds": "\((seconds * 100).rounded() / 100)"])
                phaseStarted = now
            }
            if !verify { try await RebuildTarget.lock(tables, on: conn) }
            // Memory for the folds' sorts and hashes and for the indexes made again after the load. No JIT: the
            // folds are costed high enough for PostgreSQL to compile them, which takes longer than it saves.
            try await conn.execute(
                unsafeScript:
                    "SET LOCAL maintenance_work_mem = '512MB'; SET LOCAL work_mem = '256MB'; SET LOCAL jit = off")
            let counts = try await conn.query(
                "SELECT count(*) AS n, count(*) FILTER (WHERE type <> ALL(\(foldedOnly)::text[])) AS paged FROM events")
            let total = try counts[0].int("n")
            var done = 0
            progress?(done, total)
            let target =
                verify
                ? try await RebuildTarget.scratch(Self.schema, tables: tables, unindexed: unindexed, on: conn)
                : try await RebuildTarget.live(tables: tables, unindexed: unindexed, on: conn)
            let apps = try await store.appIds(on: conn)
            endPhase("prepare")
            // The folds run while the scan reads (sorts) the log for its first page and a third connection summarises
            // what it can, on the other core; the summaries are written after the page pass.
            try await store.withSnapshotReader(sharing: conn) { summaryReader in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // On the global executor: a child task inheriting `conn`'s would wait for the folds, which run
                    // inline on it.
                    group.addTask(executorPreference: globalConcurrentExecutor) {
                        for projection in summarizing { try await projection.summarize(apps: apps, on: summaryReader) }
                    }
                    try await store.forEachPage(
                        skipping: foldedOnly, excluding: summarized.map(\.sql), pageSize: batchSize,
                        sharingSnapshotOf: conn,
                        meanwhile: {
                            for projection in folding {
                                try await projection.fold(into: target.schema, apps: apps, on: conn)
                            }
                            done = total - (try counts[0].int("paged"))
                            progress?(done, total)
                            endPhase("folds")
                        }
                    ) { events in
                        try await apply(events, through: perEvent, into: target.schema, on: conn)
                        done += events.count
                        progress?(done, total)
                    }
                    try await group.waitForAll()
                }
                endPhase("pages")
                for projection in summarizing {
                    try await projection.writeSummary(from: summaryReader, into: target.schema, on: conn)
                }
                progress?(total, total)
                endPhase("summaries")
            }
            var differences: [TableDifference] = []
            if verify {
                for table in tables {
                    let d = try await compare(table, on: conn)
                    if !d.onlyLive.isEmpty || !d.onlyRebuilt.isEmpty { differences.append(d) }
                }
                try await conn.execute(unsafeScript: "DROP SCHEMA \(Self.schema) CASCADE")
                endPhase("compare")
            } else {
                try await target.finish(on: conn)
                try await checkpointAsyncProjectors(on: conn)
                endPhase("indexes")
                try await target.analyze(on: conn)
                endPhase("statistics")
            }
            return Report(
                events: total, seconds: Date().timeIntervalSince(started), phases: phases, differences: differences)
        }
    }

    /// Asynchronous projectors go on from the newest event the rebuild saw.
    private func checkpointAsyncProjectors(on conn: PGConnection) async throws {
        guard
            !asyncProjectorNames.isEmpty,
            let last = try await conn.query(
                """
                SELECT transaction_id::text AS xid, position FROM events
                ORDER BY transaction_id DESC, position DESC LIMIT 1
                """
            ).first
        else { return }
        let transactionId = try last.string("xid")
        let position = try last.int64("position")
        for name in asyncProjectorNames {
            try await conn.query(
                """
                INSERT INTO projector_checkpoints (name, transaction_id, position) VALUES
                    (\(name), \(transactionId)::xid8, \(position))
                ON CONFLICT (name) DO UPDATE SET transaction_id = excluded.transaction_id,
                    position = excluded.position, updated_at = now()
                """)
        }
    }

    /// A page through each per-event projection's `applyAll`, as group commit applies an append batch. Each
    /// projection writes only its own tables, so handing it its events of the page together gives what
    /// event-by-event application gives — except for `apps`, the one table others read (an app's time zone,
    /// for local days): an app event is a segment of its own, so the events before it are applied with the
    /// settings they were written under and the events after it with its own.
    func apply(
        _ events: [ProjectedEvent], through projections: [any Projection], into schema: String,
        on conn: PGConnection
    ) async throws {
        var segment: [ProjectedEvent] = []
        func flush() async throws {
            for projection in projections {
                let handled = segment.filter { projection.handles($0.type) }
                if !handled.isEmpty {
                    try await projection.applyAll(handled, on: conn, schema: schema)
                    // The server runs these while the next projection (or page) makes its statements.
                    try await conn.sendQueued()
                }
            }
            segment.removeAll(keepingCapacity: true)
        }
        for event in events {
            let isAppEvent = AppProjection().handles(event.type)
            if isAppEvent { try await flush() }
            segment.append(event)
            if isAppEvent { try await flush() }
        }
        try await flush()
    }

    /// The rows of `table` only in the live table and only in the rebuild: of every app, or of `app`.
    func compare(_ table: String, app: String? = nil, on conn: PGConnection) async throws -> TableDifference {
        func rows(_ a: String, _ b: String) async throws -> [String] {
            let only: PGQuery = app.map { "WHERE app_id = \($0)" } ?? ""
            return try await conn.query(
                """
                SELECT row_to_json(d)::text AS r FROM
                    (SELECT * FROM \(unsafeRaw: a).\(unsafeRaw: table) \(only)
                     EXCEPT ALL SELECT * FROM \(unsafeRaw: b).\(unsafeRaw: table) \(only)) d
                ORDER BY 1 LIMIT 20
                """
            ).map { try $0.string("r") }
        }
        return TableDifference(
            table: table, onlyLive: try await rows("public", Self.schema),
            onlyRebuilt: try await rows(Self.schema, "public"))
    }
}
