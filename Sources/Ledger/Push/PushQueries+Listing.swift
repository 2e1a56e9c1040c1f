import Foundation
import Postgres
import PushCore

/// Which push records a listing returns: by status and by creation time (`from` inclusive, `to` exclusive).
public struct PushListFilter: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable {
        case scheduled
        case inQueue = "in-queue"
        case done, cancelled
        /// Any status that is an error message (SPEC §4.5: "or an error message string").
        case failed
    }

    public var status: Status?
    public var from: Date?
    public var to: Date?

    public init(status: Status? = nil, from: Date? = nil, to: Date? = nil) {
        self.status = status
        self.from = from
        self.to = to
    }

    var condition: PGQuery {
        var sql: PGQuery = "TRUE"
        switch status {
        case nil: break
        case .failed:
            let ordinary = Status.allCases.filter { $0 != .failed }.map(\.rawValue)
            sql = sql + " AND NOT (status = ANY(\(ordinary)::text[]))"
        case let status?: sql = sql + " AND status = \(status.rawValue)"
        }
        if let from { sql = sql + " AND created_at >= \(from)::timestamptz" }
        if let to { sql = sql + " AND created_at < \(to)::timestamptz" }
        return sql
    }
}

extension PushQueries {
    /// Who asked for each of `pushIds` and, for a device list, its size: from the `PushRequested` events (the log
    /// is the only place that keeps the actor, and the record's `where` is empty for `/push/devices`), read from
    /// the day partitions of the pushes' streams' span only (`StreamSpan`).
    public func origins(appId: String, pushIds: [String]) async throws -> [String: PushOrigin] {
        guard !pushIds.isEmpty else { return [:] }
        let streams = pushIds.map(PushEvent.stream)
        let rows = try await pool.withConnection { conn -> PGRows? in
            guard let span = try await StreamSpan.of(streams: streams, appId: appId, on: conn) else { return nil }
            return try await conn.query(
                """
                SELECT data ->> 'objectId' AS push_id, metadata ->> 'keyKind' AS key_kind,
                       metadata ->> 'address' AS address, metadata ->> 'userAgent' AS user_agent,
                       metadata ->> 'requestId' AS request_id,
                       data -> 'request' ->> 'device_type' AS device_type,
                       coalesce(jsonb_array_length(data -> 'request' -> 'device_ids'), 0) AS device_ids
                FROM events
                WHERE app_id = \(appId) AND stream = ANY(\(streams)::text[]) AND type = \(PushEvent.requested)
                  AND \(span.condition)
                """)
        }
        guard let rows else { return [:] }
        var out: [String: PushOrigin] = [:]
        for row in rows {
            let sender = EventMetadata(
                keyKind: row["key_kind"] ?? "unknown", address: row["address"], userAgent: row["user_agent"],
                requestId: row["request_id"])
            out[try row.string("push_id")] = PushOrigin(
                sender: sender, deviceType: row["device_type"], deviceIds: try row.int("device_ids"))
        }
        return out
    }

    /// Installations that opened each of `pushIds` at least once (`push_stats.unique_opens`): the numerator of the
    /// open rate the opens report prints, so the console's rate equals the report's.
    public func uniqueOpens(appId: String, pushIds: [String]) async throws -> [String: Int64] {
        guard !pushIds.isEmpty else { return [:] }
        let rows = try await pool.query(
            """
            SELECT push_id, unique_opens FROM push_stats WHERE app_id = \(appId) AND push_id = ANY(\(pushIds)::text[])
            """)
        var out: [String: Int64] = [:]
        for row in rows { out[try row.string("push_id")] = try row.int64("unique_opens") }
        return out
    }
}

/// Where a push came from: the actor of its request and, for `/push/devices`, the listed platform and ids.
public struct PushOrigin: Sendable, Equatable {
    public let sender: EventMetadata
    public let deviceType: String?
    public let deviceIds: Int

    public init(sender: EventMetadata, deviceType: String?, deviceIds: Int) {
        self.sender = sender
        self.deviceType = deviceType
        self.deviceIds = deviceIds
    }
}
