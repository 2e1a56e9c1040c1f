import Foundation
import Logging
import Postgres
import PushCore

/// The append-only event log over PostgreSQL (SPEC §7).
///
/// Ordering guarantee: events are read in (transaction id, position) order and only below the oldest
/// transaction still running, so an event whose transaction commits late is never skipped. Writers lock
/// their streams before their first write (checked here), so appends to one stream get increasing
/// transaction ids in version order and the global order agrees with every stream's own order.
public struct EventStore: Sendable {
    public static let notifyChannel = "pushledger_events"
    public let pool: PGPool
    public let inlineProjections: [any Projection]
    /// Where every store built on this one reads the time, so that tests can move it.
    public let clock: ServiceClock

    public init(pool: PGPool, inlineProjections: [any Projection], clock: ServiceClock = .system) {
        self.pool = pool
        self.inlineProjections = inlineProjections
        self.clock = clock
    }

    /// Runs `body` in a transaction that holds the advisory locks for `lockKeys` (stream names, identity
    /// keys such as a device token). Locks are taken in sorted order, first, before any write.
    ///
    /// Locks, appends and inline projections are queued on the connection rather than sent one by one: the
    /// locks travel with the body's first read, the appends with COMMIT. A create is then two round trips
    /// ([BEGIN, locks, lookup] and [INSERT, projection, COMMIT]) where it used to be four. The price is
    /// that a lost race or a lock taken too late surfaces at the next statement rather than at the call;
    /// `LedgerTransaction.translate` turns it back into the `VersionConflict` or
    /// `StreamLockOrderViolation` the call would have thrown.
    public func write<T: Sendable>(
        appId: String, metadata: EventMetadata, lockKeys: [String],
        _ body: (LedgerTransaction) async throws -> T
    ) async throws -> T {
        try await write(appId: appId, commands: [(metadata, lockKeys)]) { try await body($0[0]) }
    }

    /// Several commands of one app in one database transaction (group commit): each command gets its own
    /// `LedgerTransaction` (its own metadata and locks) on the shared connection, in the order given. All
    /// their locks are taken first, together; a command that takes more locks later must do so before any
    /// command appends. One command's failure fails them all: nothing commits.
    public func write<T: Sendable>(
        appId: String, commands: [(metadata: EventMetadata, lockKeys: [String])],
        _ body: ([LedgerTransaction]) async throws -> T
    ) async throws -> T {
        var transactions: [LedgerTransaction] = []
        do {
            let value = try await pool.withTransaction { conn in
                let keys = Array(Set(commands.flatMap(\.lockKeys))).sorted()
                try await Self.takeLocks(keys, appId: appId, on: conn)
                transactions = commands.map { command in
                    LedgerTransaction(
                        connection: conn, appId: appId, metadata: command.metadata,
                        inlineProjections: inlineProjections, lockedKeys: Set(command.lockKeys))
                }
                let value = try await body(transactions)
                // NOTIFY takes a database-wide lock at commit, serialising committers; only wake workers when
                // something they consume (a push stream) changed. Other consumers poll within a second anyway.
                if transactions.contains(where: { $0.appendedStreams.contains(where: PushEvent.isPushStream) }) {
                    try await conn.enqueue(.reusingPlan("SELECT pg_notify(\(EventStore.notifyChannel), \(appId))"))
                }
                return value
            }
            LedgerMetrics.committed(transactions.flatMap(\.appendedEvents))
            return value
        } catch {
            throw LedgerTransaction.translate(error, appendedBy: transactions)
        }
    }

    /// Queues the locks for `keys` (see `pushledger_lock_streams` in sql/0005): they are taken when the
    /// connection next sends, before anything queued after them.
    static func takeLocks(_ keys: [String], appId: String, on conn: PGConnection) async throws {
        guard !keys.isEmpty else { return }
        try await conn.enqueue(.reusingPlan("SELECT pushledger_lock_streams(\(appId), \(keys)::text[])"))
    }

    /// Up to `limit` committed events after `checkpoint`, in global order, never past a running transaction:
    /// what an incremental projector may safely consume.
    public func read(after checkpoint: Checkpoint, limit: Int, on conn: PGConnection) async throws -> [RecordedEvent] {
        try await read(after: checkpoint, limit: limit, belowOldestRunningTransaction: true, on: conn)
    }

    /// Like `read(after:limit:on:)`. Without the running-transaction bound it returns everything visible to
    /// the caller's snapshot, which is what a rebuild compared at that same snapshot needs.
    public func read(
        after checkpoint: Checkpoint, limit: Int, belowOldestRunningTransaction: Bool, on conn: PGConnection
    )
        async throws -> [RecordedEvent]
    {
        let bound: PGQuery =
            belowOldestRunningTransaction ? "AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())" : ""
        let rows = try await conn.query(
            """
            SELECT position, transaction_id::text AS xid, app_id, stream, version, type, data, metadata, recorded_at
            FROM events
            WHERE (transaction_id, position) > (\(String(checkpoint.transactionId))::xid8, \(checkpoint.position))
              \(bound)
            ORDER BY transaction_id, position
            LIMIT \(limit)
            """)
        return try rows.map(Self.decode)
    }

    /// Up to `limit` committed events of one app after `checkpoint`, in the app's order, never past a
    /// transaction still running where the app's rows are. On one PostgreSQL this is `read(after:)` for one app.
    /// On Citus every worker has its own transaction ids, and this is the reader that keeps the guarantee: the
    /// statement names the app, so it runs on the app's worker, where the rows' transaction ids (each the
    /// worker's own, `CitusLayout`) and the snapshot's bound are of the same node (SPEC §7).
    public func read(
        appId: String, after checkpoint: Checkpoint, limit: Int, on conn: PGConnection
    ) async throws -> [RecordedEvent] {
        try await conn.query(
            """
            SELECT position, transaction_id::text AS xid, app_id, stream, version, type, data, metadata, recorded_at
            FROM events
            WHERE app_id = \(appId)
              AND (transaction_id, position) > (\(String(checkpoint.transactionId))::xid8, \(checkpoint.position))
              AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
            ORDER BY transaction_id, position
            LIMIT \(limit)
            """
        ).map(Self.decode)
    }

    /// Events of one stream in version order, read from the day partitions of its span only (`StreamSpan`).
    public func readStream(appId: String, stream: String, on conn: PGConnection) async throws -> [RecordedEvent] {
        guard let span = try await StreamSpan.of(streams: [stream], appId: appId, on: conn) else { return [] }
        let rows = try await conn.query(
            """
            SELECT position, transaction_id::text AS xid, app_id, stream, version, type, data, metadata, recorded_at
            FROM events WHERE app_id = \(appId) AND stream = \(stream) AND \(span.condition) ORDER BY version
            """)
        return try rows.map(Self.decode)
    }

    /// Events of one stream in version order, on a connection of the pool (the console's timelines).
    public func readStream(appId: String, stream: String) async throws -> [RecordedEvent] {
        try await pool.withConnection { conn in try await readStream(appId: appId, stream: stream, on: conn) }
    }

    /// Number of events in the log (tests and `rebuild` use it to prove a bad request appended nothing).
    public func count() async throws -> Int {
        try await pool.query("SELECT count(*) AS n FROM events")[0].int("n")
    }

    static func decode(_ row: PGRow) throws -> RecordedEvent {
        RecordedEvent(
            position: try row.int64("position"), transactionId: UInt64(try row.string("xid")) ?? 0,
            appId: try row.string("app_id"), stream: try row.string("stream"), version: try row.int("version"),
            type: try row.string("type"), data: try row.json("data"), metadata: try row.json("metadata"),
            recordedAt: try row.date("recorded_at"))
    }
}
