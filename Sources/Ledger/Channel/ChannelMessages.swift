import Foundation
import Postgres
import PushCore

/// A message on its way to a device over the own channel (SPEC §12.2), as stored in `channel_messages`.
public struct ChannelMessage: Sendable, Hashable {
    /// The row's: increasing in the order messages were stored, over every device.
    public let id: Int64
    /// The device's own sequence (1, 2, 3…, SPEC §12.2): what the device sees as the message's id and
    /// acknowledges.
    public let seq: Int64
    public let appId: String
    public let installationId: String
    public let objectId: String
    public let pushId: String
    public let platform: String
    public let data: JSON
    public let expireAt: Date

    /// What the device receives: `{"type":"message","id","pushId","data","expireAt"}`, `id` its sequence.
    public var json: JSON {
        [
            "type": "message", "id": .string(String(seq)), "pushId": .string(pushId), "data": data,
            "expireAt": .string(LeanDate.format(expireAt)),
        ]
    }
}

/// What a sender hands the own channel for one target: the platform's content and when it stops mattering.
public struct QueuedMessage: Sendable, Hashable {
    public let platform: String
    public let data: JSON
    public let expireAt: Date

    public init(platform: String, data: JSON, expireAt: Date) {
        self.platform = platform
        self.data = data
        self.expireAt = expireAt
    }
}

/// The own channel's work table, `channel_messages` (and `channel_drops`): the only code that reads or writes
/// them. Rows are inserted by the transaction that records a batch and deleted by the transaction that
/// records their end (ack, expiry, drop), always under the push stream's lock.
enum ChannelMessages {
    /// NOTIFY channel on which a recorded batch announces its new messages: `<appId>\t<pushId>\t<batch>`.
    static let notifyChannel = "pushledger_channel"

    static let columns: PGQuery =
        "id, seq, app_id, installation_id, object_id, push_id, platform, data, expire_at"

    /// Stores a batch's channel messages and announces them once the transaction commits. Targets whose
    /// installation has no `installationId` (or is gone) cannot be reached: their objectIds are returned.
    /// Each message takes the next number of its device's sequence; the devices' sequence rows are locked in
    /// installationId order, so batches storing for the same devices at once wait for each other, never
    /// deadlock.
    static func enqueue(
        appId: String, pushId: String, batchNo: Int, messages: [(objectId: String, message: QueuedMessage)],
        now: Date, on conn: PGConnection
    ) async throws -> Set<String> {
        let objectIds = messages.map(\.objectId)
        let rows = try await conn.query(
            """
            WITH m AS (
                SELECT i.installation_id AS iid, m.o, m.p, m.d, m.e, m.ord,
                       row_number() OVER (PARTITION BY i.installation_id ORDER BY m.ord) AS n
                FROM unnest(\(objectIds)::text[], \(messages.map(\.message.platform))::text[],
                            \(messages.map { $0.message.data.encoded() })::text[],
                            \(messages.map { PGTimestamp.format($0.message.expireAt) })::timestamptz[])
                     WITH ORDINALITY AS m(o, p, d, e, ord)
                JOIN installations i ON i.app_id = \(appId) AND i.object_id = m.o AND i.installation_id IS NOT NULL
            ), s AS (
                INSERT INTO channel_sequences AS cs (app_id, installation_id, last_seq)
                SELECT \(appId), iid, count(*) FROM m GROUP BY iid ORDER BY iid
                ON CONFLICT (app_id, installation_id) DO UPDATE SET last_seq = cs.last_seq + excluded.last_seq
                RETURNING installation_id AS iid, last_seq
            )
            INSERT INTO channel_messages
                (app_id, installation_id, object_id, push_id, batch_no, platform, data, expire_at, created_at, seq)
            SELECT \(appId), m.iid, m.o, \(pushId), \(batchNo), m.p, m.d::jsonb, m.e,
                   \(now)::timestamptz,
                   s.last_seq - (count(*) OVER (PARTITION BY m.iid)) + m.n
            FROM m JOIN s ON s.iid = m.iid
            ORDER BY m.ord
            RETURNING object_id
            """)
        try await conn.enqueue(
            .reusingPlan(
                "SELECT pg_notify(\(notifyChannel), \([appId, pushId, String(batchNo)].joined(separator: "\t")))"))
        return Set(objectIds).subtracting(try rows.map { try $0.string("object_id") })
    }

    /// A batch's messages still waiting, for the processes whose devices are connected.
    static func batch(
        appId: String, pushId: String, batchNo: Int, now: Date, on db: some PGQuerying
    ) async throws
        -> [ChannelMessage]
    {
        try await db.query(
            """
            SELECT \(columns) FROM channel_messages
            WHERE app_id = \(appId) AND push_id = \(pushId) AND batch_no = \(batchNo) AND expire_at > \(now)::timestamptz
            ORDER BY installation_id, seq
            """
        ).map(message)
    }

    /// A device's waiting messages, oldest first, at most `limit`, skipping the sequence numbers `excluding`
    /// (already in flight).
    static func pending(
        appId: String, installationId: String, excluding: [Int64], limit: Int, now: Date, on db: some PGQuerying
    ) async throws -> [ChannelMessage] {
        try await db.query(
            """
            SELECT \(columns) FROM channel_messages
            WHERE app_id = \(appId) AND installation_id = \(installationId) AND expire_at > \(now)::timestamptz
              AND seq <> ALL(\(excluding.map(String.init))::bigint[])
            ORDER BY seq LIMIT \(limit)
            """
        ).map(message)
    }

    /// The rows a device's acknowledgements (its sequence numbers) name, with their pushes.
    static func acknowledged(
        appId: String, acks: [(installationId: String, seq: Int64)], on db: some PGQuerying
    ) async throws -> [(id: Int64, pushId: String)] {
        try await db.query(
            """
            SELECT c.id, c.push_id FROM channel_messages c
            JOIN unnest(\(acks.map(\.installationId))::text[], \(acks.map { String($0.seq) })::bigint[]) AS a(iid, seq)
              ON c.app_id = \(appId) AND c.installation_id = a.iid AND c.seq = a.seq
            """
        ).map { (try $0.int64("id"), try $0.string("push_id")) }
    }

    /// The pushes the given messages belong to (read before their streams are locked).
    static func pushIds(appId: String, ids: [Int64], on db: some PGQuerying) async throws -> [String] {
        try await db.query(
            """
            SELECT DISTINCT push_id FROM channel_messages
            WHERE app_id = \(appId) AND id = ANY(\(ids.map(String.init))::bigint[])
            """
        ).map { try $0.string("push_id") }
    }

    /// Deletes the acknowledged messages that are still there and returns them: exactly the acks that count.
    static func acknowledge(appId: String, ids: [Int64], on conn: PGConnection) async throws -> [ChannelMessage] {
        try await conn.query(
            """
            DELETE FROM channel_messages
            WHERE app_id = \(appId) AND id = ANY(\(ids.map(String.init))::bigint[])
            RETURNING \(columns)
            """
        ).map(message)
    }

    /// Pushes (per app) with messages past their expiration, oldest first.
    static func expiredPushes(
        now: Date, limit: Int, on db: some PGQuerying
    ) async throws
        -> [(appId: String, pushId: String)]
    {
        try await db.query(
            """
            SELECT app_id, push_id FROM channel_messages WHERE expire_at <= \(now)::timestamptz
            GROUP BY app_id, push_id ORDER BY min(expire_at) LIMIT \(limit)
            """
        ).map { (try $0.string("app_id"), try $0.string("push_id")) }
    }

    static func deleteExpired(
        appId: String, pushId: String, now: Date, on conn: PGConnection
    ) async throws
        -> [ChannelMessage]
    {
        try await conn.query(
            """
            DELETE FROM channel_messages
            WHERE app_id = \(appId) AND push_id = \(pushId) AND expire_at <= \(now)::timestamptz
            RETURNING \(columns)
            """
        ).map(message)
    }

    /// The messages of the installations `objectIds` beyond the newest `cap` of each (the oldest ones).
    static func overCap(
        appId: String, objectIds: [String], cap: Int64, on db: some PGQuerying
    ) async throws
        -> [Int64]
    {
        try await db.query(
            """
            SELECT id FROM (
                SELECT id, row_number() OVER (PARTITION BY object_id ORDER BY id DESC) AS n
                FROM channel_messages
                WHERE app_id = \(appId) AND object_id = ANY(\(objectIds)::text[])) ranked
            WHERE n > \(cap)
            """
        ).map { try $0.int64("id") }
    }

    /// Deletes dropped messages and remembers, per device, how many it has to be told about.
    static func drop(appId: String, ids: [Int64], on conn: PGConnection) async throws -> [ChannelMessage] {
        let dropped = try await conn.query(
            """
            DELETE FROM channel_messages
            WHERE app_id = \(appId) AND id = ANY(\(ids.map(String.init))::bigint[])
            RETURNING \(columns)
            """
        ).map(message)
        var perDevice: [String: Int] = [:]
        for m in dropped { perDevice[m.installationId, default: 0] += 1 }
        try await conn.query(
            """
            INSERT INTO channel_drops (app_id, installation_id, dropped)
            SELECT \(appId), d.iid, d.n::bigint
            FROM unnest(\(Array(perDevice.keys))::text[], \(perDevice.values.map(String.init))::text[]) AS d(iid, n)
            ON CONFLICT (app_id, installation_id) DO UPDATE SET dropped = channel_drops.dropped + excluded.dropped
            """)
        return dropped
    }

    /// How many of the device's messages were dropped since it was last told (and forgets them).
    static func takeDrops(appId: String, installationId: String, on db: some PGQuerying) async throws -> Int64 {
        try await db.query(
            """
            DELETE FROM channel_drops WHERE app_id = \(appId) AND installation_id = \(installationId)
            RETURNING dropped
            """
        ).first.map { try $0.int64("dropped") } ?? 0
    }

    static func message(_ row: PGRow) throws -> ChannelMessage {
        ChannelMessage(
            id: try row.int64("id"), seq: try row.int64("seq"), appId: try row.string("app_id"),
            installationId: try row.string("installation_id"),
            objectId: try row.string("object_id"), pushId: try row.string("push_id"),
            platform: try row.string("platform"), data: try row.json("data"),
            expireAt: try row.date("expire_at"))
    }
}
