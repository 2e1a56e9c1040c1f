import Foundation
import Postgres
import PushCore

/// A write transaction on the log for one app. Created by `EventStore.write`, which has already taken the
/// stream locks before the transaction's first write; appended events are projected inline by the
/// store's inline projections in the same transaction, so a client reads its own write immediately.
public final class LedgerTransaction: @unchecked Sendable {
    public let connection: PGConnection
    public let appId: String
    public let metadata: EventMetadata
    let inlineProjections: [any Projection]
    private(set) var lockedKeys: Set<String>
    private(set) var appendedStreams: Set<String> = []
    /// Every event appended, for the metrics counted once the transaction commits.
    private(set) var appendedEvents: [LedgerEvent] = []
    /// Every append's stream and expected version, to name the stream of a conflict reported later.
    private var appends: [(stream: String, expectedVersion: Int)] = []

    init(
        connection: PGConnection, appId: String, metadata: EventMetadata, inlineProjections: [any Projection],
        lockedKeys: Set<String>
    ) {
        self.connection = connection
        self.appId = appId
        self.metadata = metadata
        self.inlineProjections = inlineProjections
        self.lockedKeys = lockedKeys
    }

    /// Claims a stream this transaction has just named with a fresh random id: nobody else can know it
    /// before this transaction commits, so it needs no lock (and no round trip) to stay ordered.
    public func claimNewStream(_ stream: String) {
        lockedKeys.insert(stream)
    }

    /// Takes more stream locks; allowed only while the transaction has not written yet (reads are fine),
    /// e.g. after looking up which installation a device token belongs to. Queued like every lock: they are
    /// taken before the transaction's next statement runs.
    public func lock(_ keys: [String]) async throws {
        try await Self.lock([(self, keys)])
    }

    /// Takes more stream locks for several commands of one `EventStore.write` in one statement: the
    /// database sorts them, so they are taken in the order every other locker of several streams uses
    /// (one call each), and two such writers never wait for each other in a cycle.
    public static func lock(_ keysByTransaction: [(LedgerTransaction, [String])]) async throws {
        var fresh: Set<String> = []
        for (tx, keys) in keysByTransaction { fresh.formUnion(keys.filter { !tx.lockedKeys.contains($0) }) }
        guard let first = keysByTransaction.first?.0, !fresh.isEmpty else { return }
        try await EventStore.takeLocks(fresh.sorted(), appId: first.appId, on: first.connection)
        for (tx, keys) in keysByTransaction { tx.lockedKeys.formUnion(keys) }
    }

    /// The stream's current version (0 when it has no events). Read from `stream_heads` (sql/0011), which one
    /// index probe answers however many day partitions the log has, and which still knows the version of a
    /// stream whose old events the log-retention step dropped.
    public func currentVersion(of stream: String) async throws -> Int {
        let rows = try await connection.query(
            .reusingPlan(
                """
                SELECT coalesce((SELECT version FROM stream_heads WHERE app_id = \(appId) AND stream = \(stream)), 0) AS v
                """))
        return try rows[0].int("v")
    }

    /// Appends events to a stream that must be at `expectedVersion`, then applies inline projections.
    /// Both are queued and reach the server with the transaction's next statement or its COMMIT; a lost
    /// race surfaces there and leaves `EventStore.write` as a `VersionConflict`.
    public func append(stream: String, expectedVersion: Int, _ events: [NewEvent]) async throws {
        try await Self.append([StreamAppend(self, stream: stream, expectedVersion: expectedVersion, events: events)])
    }

    /// Events for one stream of one command.
    public struct StreamAppend {
        let transaction: LedgerTransaction
        let stream: String
        let expectedVersion: Int
        let events: [NewEvent]
        /// A push stream's events, which only `PushLifecycleInterpreter` appends.
        let writesPushStream: Bool

        public init(_ transaction: LedgerTransaction, stream: String, expectedVersion: Int, events: [NewEvent]) {
            self.transaction = transaction
            self.stream = stream
            self.expectedVersion = expectedVersion
            self.events = events
            self.writesPushStream = false
        }

        init(
            _ transaction: LedgerTransaction, pushStream: String, expectedVersion: Int, events: [NewEvent],
            by _: PushStreamWriter
        ) {
            self.transaction = transaction
            self.stream = pushStream
            self.expectedVersion = expectedVersion
            self.events = events
            self.writesPushStream = true
        }
    }

    /// An append to a push stream from outside `PushLifecycleInterpreter`: a bug, refused before anything is
    /// written.
    public struct PushStreamAppendRefused: Error, CustomStringConvertible {
        public let stream: String
        public var description: String { "\(stream) is appended to only through the push lifecycle" }
    }

    /// Appends for the commands of one `EventStore.write` (which share its connection) in a single INSERT,
    /// each event with its own command's metadata, positions in the order given; then hands each inline
    /// projection the events it handles, in order, so it may write runs of them together. (Projections own
    /// disjoint tables and only read `apps`, whose projection comes first, so projecting projection by
    /// projection has the same effect as event by event.)
    public static func append(_ appends: [StreamAppend]) async throws {
        let appends = appends.filter { !$0.events.isEmpty }
        guard let first = appends.first else { return }
        let appId = first.transaction.appId
        var streams: [String] = [], versions: [String] = [], types: [String] = [], datas: [String] = []
        var metadatas: [String] = [], projected: [ProjectedEvent] = []
        if let stray = appends.first(where: { !$0.writesPushStream && PushEvent.isPushStream($0.stream) }) {
            throw PushStreamAppendRefused(stream: stray.stream)
        }
        for append in appends {
            let tx = append.transaction
            precondition(tx.lockedKeys.contains(append.stream), "append to \(append.stream) without its stream lock")
            precondition(
                tx.connection === first.transaction.connection && tx.appId == appId,
                "appends written together must share one transaction")
            tx.appendedStreams.insert(append.stream)
            tx.appends.append((append.stream, append.expectedVersion))
            let metadata = tx.metadata.json.encoded()
            for (offset, event) in append.events.enumerated() {
                let version = append.expectedVersion + offset + 1
                streams.append(append.stream)
                versions.append(String(version))
                types.append(event.type)
                tx.appendedEvents.append(event.event)
                datas.append(event.storedText ?? event.data.encoded())
                metadatas.append(metadata)
                projected.append(
                    ProjectedEvent(appId: appId, stream: append.stream, version: version, event: event.event))
            }
        }
        // The events' data goes as one JSON array: each is JSON already, so it is joined as it is, where an
        // element of a `text[]` would have its quotes escaped here and unescaped by PostgreSQL before being
        // parsed (a page's `PushTargeted` event is a document of 140 kB for 1,000 targets, full of quotes).
        let dataArray = "[" + datas.joined(separator: ",") + "]"
        let connection = first.transaction.connection
        try await connection.enqueue(
            .reusingPlan(
                """
                INSERT INTO events (app_id, stream, version, type, data, metadata)
                SELECT \(appId), s, v::int, t, d, m::jsonb
                FROM ROWS FROM (unnest(\(streams)::text[]), unnest(\(versions)::text[]), unnest(\(types)::text[]),
                                jsonb_array_elements(\(dataArray)::jsonb), unnest(\(metadatas)::text[]))
                    WITH ORDINALITY AS e(s, v, t, d, m, ord)
                ORDER BY ord
                """))
        for projection in first.transaction.inlineProjections {
            let handled = projected.filter { projection.handles($0.type) }
            if !handled.isEmpty { try await projection.applyAll(handled, on: connection, schema: "public") }
        }
    }

    /// Sends the queued appends and projection statements now, so their errors surface here (a token taken
    /// by another installation, say). A lost race on a stream version is thrown as `VersionConflict`.
    public func flushProjections() async throws {
        do {
            try await connection.flush()
        } catch {
            throw Self.translate(error, appendedBy: [self])
        }
    }

    /// The error a queued append or lock would have thrown had it been sent at once: a unique violation of
    /// the stream version is a `VersionConflict` on the stream it names (one of `transactions`' appends), a
    /// lock taken after a write is a `StreamLockOrderViolation`; anything else is passed on unchanged.
    static func translate(_ error: any Error, appendedBy transactions: [LedgerTransaction]) -> any Error {
        guard let pg = error as? PGError else { return error }
        if pg.sqlState == "PL001" { return StreamLockOrderViolation() }
        guard isStreamVersionClash(pg) else { return error }
        // The detail reads "Key (app_id, stream, version)=(app, stream, 3) already exists."
        let appends = transactions.flatMap { tx in tx.appends.map { (tx.appId, $0.stream, $0.expectedVersion) } }
        let named = appends.first { ((pg.detail ?? "") + pg.message).contains("=(\($0.0), \($0.1), ") } ?? appends.first
        return VersionConflict(stream: named?.1 ?? "", expected: named?.2 ?? 0)
    }

    /// The unique constraint whose violation means another writer appended to the stream first. Since the log
    /// is partitioned (sql/0011) it is enforced by the trigger that advances `stream_heads`, under this name.
    static let streamVersionConstraint = "events_app_id_stream_version_key"

    /// Whether an error is the stream-version guard's unique violation: by its SQLSTATE and constraint name on one
    /// PostgreSQL; on Citus, which passes a worker's error on without the constraint's name (and, when it ends the
    /// transaction on the worker, as an internal error, XX000), by its message, which names the constraint.
    static func isStreamVersionClash(_ error: PGError) -> Bool {
        if let constraint = error.constraint { return error.isUniqueViolation && constraint == streamVersionConstraint }
        return (error.isUniqueViolation || error.sqlState == "XX000")
            && error.message.contains("violates unique constraint \"\(streamVersionConstraint)\"")
    }
}
