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

    init(connection: PGConnection, appId: String, metadata: EventMetadata, inlineProjections: [any Projection],
        lockedKeys: Set<String>) {
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
    /// e.g. after looking up which installation a device token belongs to.
    public func lock(_ keys: [String]) async throws {
        let fresh = keys.filter { !lockedKeys.contains($0) }.sorted()
        guard !fresh.isEmpty else { return }
        try await EventStore.takeLocks(fresh, appId: appId, on: connection)
        lockedKeys.formUnion(fresh)
    }

    /// The stream's current version (0 when it has no events).
    public func currentVersion(of stream: String) async throws -> Int {
        let rows = try await connection.query(
            "SELECT coalesce(max(version), 0) AS v FROM events WHERE app_id = \(appId) AND stream = \(stream)")
        return try rows[0].int("v")
    }

    /// Appends events to a stream that must be at `expectedVersion`, then applies inline projections.
    @discardableResult
    public func append(stream: String, expectedVersion: Int, _ events: [NewEvent]) async throws -> [RecordedEvent] {
        precondition(lockedKeys.contains(stream), "append to \(stream) without its stream lock")
        guard !events.isEmpty else { return [] }
        appendedStreams.insert(stream)
        let types = events.map(\.type)
        let datas = events.map { $0.data.encoded() }
        let query: PGQuery = .reusingPlan("""
            INSERT INTO events (app_id, stream, version, type, data, metadata)
            SELECT \(appId), \(stream), \(expectedVersion) + ord::int, t, d::jsonb, \(metadata.json)::jsonb
            FROM unnest(\(types)::text[], \(datas)::text[]) WITH ORDINALITY AS e(t, d, ord)
            ORDER BY ord
            RETURNING position, transaction_id::text AS xid, version, recorded_at
            """)
        let rows: PGRows
        do {
            rows = try await connection.query(query)
        } catch let error as PGError where error.isUniqueViolation && error.constraint == Self.streamVersionConstraint {
            throw VersionConflict(stream: stream, expected: expectedVersion)
        }
        var recorded: [RecordedEvent] = []
        recorded.reserveCapacity(rows.count)
        for (row, event) in zip(rows, events) {
            recorded.append(
                RecordedEvent(
                    position: try row.int64("position"), transactionId: UInt64(try row.string("xid")) ?? 0,
                    appId: appId, stream: stream, version: try row.int("version"), type: event.type,
                    data: event.data, metadata: metadata.json, recordedAt: try row.date("recorded_at")))
        }
        for event in recorded {
            for projection in inlineProjections where projection.handles(event.type) {
                try await projection.apply(event, on: connection, schema: "public")
            }
        }
        // Projection statements stay queued: they travel with the transaction's next statement or its
        // COMMIT, in one round trip. A caller that must catch a projection's error where it happens (a token
        // taken by another installation) calls `flushProjections()`.
        return recorded
    }

    /// Sends the queued projection statements now, so their errors surface here.
    public func flushProjections() async throws {
        try await connection.flush()
    }

    /// The unique constraint whose violation means another writer appended to the stream first.
    static let streamVersionConstraint = "events_app_id_stream_version_key"
}
