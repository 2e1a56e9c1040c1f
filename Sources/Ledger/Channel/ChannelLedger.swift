import Foundation
import Postgres
import PushCore

/// A device's connection state for `GET /1.1/installations/:objectId/online`.
public struct Presence: Sendable, Equatable {
    public let connected: Bool
    /// When the device last connected (while connected) or disconnected.
    public let since: Date
    public let lastSeen: Date
}

/// One connect or disconnect of a device's channel session, recorded as a presence event.
public struct PresenceChange: Sendable {
    public let installationId: String
    public let session: String
    public let connected: Bool
    public let at: Date
    public let reason: String?

    public init(installationId: String, session: String, connected: Bool, at: Date, reason: String? = nil) {
        self.installationId = installationId
        self.session = session
        self.connected = connected
        self.at = at
        self.reason = reason
    }
}

/// The own channel's side of the ledger (SPEC §12.2): what waits for devices, and the events that end it.
/// Every ending (ack, expiry, drop) deletes the message rows and appends a `ChannelResults` event to the
/// push's stream in one transaction under that stream's lock, so counts stay exact with any number of
/// server processes and across crashes.
public struct ChannelLedger: Sendable {
    let store: EventStore
    /// The event store's clock, on which the channel's expiry and presence beats wait.
    public var clock: ServiceClock { store.clock }

    public init(store: EventStore) { self.store = store }

    /// The NOTIFY channel announcing recorded batches' messages (payload `<appId>\t<pushId>\t<batch>`).
    public static let notifyChannel = ChannelMessages.notifyChannel

    /// Messages kept per device when the app does not set `channel.max_pending`.
    public static let defaultCap = AppSettings.defaults["channel.max_pending"]?.intValue ?? 100

    /// A recorded batch's messages that still wait (for the process whose devices are connected).
    public func batch(appId: String, pushId: String, batchNo: Int) async throws -> [ChannelMessage] {
        try await ChannelMessages.batch(
            appId: appId, pushId: pushId, batchNo: batchNo, now: clock.now(), on: store.pool)
    }

    /// The device's waiting messages, oldest first, leaving out those already in flight.
    public func pending(
        appId: String, installationId: String, excluding: [Int64] = [], limit: Int
    ) async throws
        -> [ChannelMessage]
    {
        try await ChannelMessages.pending(
            appId: appId, installationId: installationId, excluding: excluding, limit: limit,
            now: clock.now(), on: store.pool)
    }

    /// How many messages were dropped over the device's cap since it was last told.
    public func takeDrops(appId: String, installationId: String) async throws -> Int64 {
        try await ChannelMessages.takeDrops(appId: appId, installationId: installationId, on: store.pool)
    }

    /// Records acknowledgements of one app's devices (each by its device's sequence number): each message
    /// counts once, as a success of its push, and becomes the installation's last delivered push (for open
    /// attribution). Returns how many counted.
    @discardableResult
    public func acknowledge(appId: String, acks: [(installationId: String, seq: Int64)]) async throws -> Int {
        guard !acks.isEmpty else { return 0 }
        let found = try await ChannelMessages.acknowledged(appId: appId, acks: acks, on: store.pool)
        let ids = found.map(\.id)
        return try await end(
            appId: appId, pushIds: Array(Set(found.map(\.pushId))).sorted(), as: .acknowledged
        ) { conn, now in
            let acked = try await ChannelMessages.acknowledge(appId: appId, ids: ids, on: conn)
            try await Self.rememberDeliveries(acked, at: now, on: conn)
            return acked
        }
    }

    /// Ends every message past its expiration as an error `Expired` of its push. Returns how many.
    @discardableResult
    public func expire() async throws -> Int {
        let now = clock.now()
        var total = 0
        for (appId, pushId) in try await ChannelMessages.expiredPushes(now: now, limit: 100, on: store.pool) {
            total += try await store.write(
                appId: appId, metadata: .system("channel"), lockKeys: [PushEvent.stream(pushId)]
            ) { tx in
                let expired = try await ChannelMessages.deleteExpired(
                    appId: appId, pushId: pushId, now: now, on: tx.connection)
                try await Self.appendResults(expired, as: .expired, at: now, tx: tx)
                return expired.count
            }
        }
        return total
    }

    /// Drops the oldest messages of devices holding more than `cap` (errors `Dropped` of their pushes); the
    /// device is told how many on its next connection. Returns how many were dropped.
    @discardableResult
    public func trim(appId: String, objectIds: [String], cap: Int64) async throws -> Int {
        guard !objectIds.isEmpty else { return 0 }
        let over = try await ChannelMessages.overCap(appId: appId, objectIds: objectIds, cap: cap, on: store.pool)
        guard !over.isEmpty else { return 0 }
        return try await end(appId: appId, ids: over, as: .dropped) { conn, _ in
            try await ChannelMessages.drop(appId: appId, ids: over, on: conn)
        }
    }

    /// Ends messages `ids` of one app in one transaction under their pushes' locks: `delete` removes those
    /// still there and returns them, and one `type` event per push counts them. Returns how many ended.
    private func end(
        appId: String, ids: [Int64], as ending: PushLifecycle.ChannelEnding,
        _ delete: @escaping @Sendable (PGConnection, Date) async throws -> [ChannelMessage]
    ) async throws -> Int {
        try await end(
            appId: appId, pushIds: try await ChannelMessages.pushIds(appId: appId, ids: ids, on: store.pool),
            as: ending,
            delete)
    }

    private func end(
        appId: String, pushIds: [String], as ending: PushLifecycle.ChannelEnding,
        _ delete: @escaping @Sendable (PGConnection, Date) async throws -> [ChannelMessage]
    ) async throws -> Int {
        guard !pushIds.isEmpty else { return 0 }
        let now = clock.now()
        return try await store.write(
            appId: appId, metadata: .system("channel"), lockKeys: pushIds.map(PushEvent.stream)
        ) { tx in
            let ended = try await delete(tx.connection, now)
            try await Self.appendResults(ended, as: ending, at: now, tx: tx)
            return ended.count
        }
    }

    /// One `ChannelResults` event per push of `messages`.
    static func appendResults(
        _ messages: [ChannelMessage], as ending: PushLifecycle.ChannelEnding, at: Date, tx: LedgerTransaction
    )
        async throws
    {
        let byPush = Dictionary(grouping: messages, by: \.pushId)
        for (pushId, messages) in byPush.sorted(by: { $0.key < $1.key }) {
            var platforms: [String: Int64] = [:]
            for m in messages { platforms[m.platform, default: 0] += 1 }
            let results = ChannelResults(
                objectId: pushId, at: LeanDate.format(at), platforms: platforms,
                installations: messages.map(\.objectId))
            var push = PushLifecycleInterpreter(existingPush: pushId, at: at, tx: tx)
            try await push.perform { $0.channelMessagesEnded(ending, results) }
        }
    }

    static func rememberDeliveries(_ messages: [ChannelMessage], at: Date, on conn: PGConnection) async throws {
        guard let appId = messages.first?.appId else { return }
        // The newest push per installation, should one flush ack several.
        var latest: [String: ChannelMessage] = [:]
        for m in messages where (latest[m.objectId]?.id ?? 0) < m.id { latest[m.objectId] = m }
        try await conn.query(
            """
            INSERT INTO last_deliveries (app_id, installation_id, push_id, delivered_at)
            SELECT \(appId), o, p, \(at)::timestamptz
            FROM unnest(\(Array(latest.keys))::text[], \(latest.values.map(\.pushId))::text[]) AS d(o, p)
            ON CONFLICT (app_id, installation_id) DO UPDATE SET push_id = excluded.push_id,
                delivered_at = excluded.delivered_at
            WHERE last_deliveries.delivered_at <= excluded.delivered_at
            """)
    }

    // MARK: Presence

    /// Records connects and disconnects of one app's devices as presence events (devices whose installation
    /// is gone are left out: there is no installation to be present).
    public func recordPresence(appId: String, changes: [PresenceChange]) async throws {
        guard !changes.isEmpty else { return }
        let rows = try await store.pool.query(
            """
            SELECT installation_id, object_id FROM installations
            WHERE app_id = \(appId) AND installation_id = ANY(\(changes.map(\.installationId))::text[])
            """)
        var objectIds: [String: String] = [:]
        for row in rows { objectIds[try row.string("installation_id")] = try row.string("object_id") }
        let known = changes.filter { objectIds[$0.installationId] != nil }
        guard !known.isEmpty else { return }
        let streams = Array(Set(known.map { PresenceEvent.stream(objectIds[$0.installationId]!) }))
        try await store.write(appId: appId, metadata: .system("channel"), lockKeys: streams) { tx in
            var versions: [String: Int] = [:]
            for row in try await tx.connection.query(
                """
                SELECT stream, version AS v FROM stream_heads
                WHERE app_id = \(appId) AND stream = ANY(\(streams)::text[])
                """)
            {
                versions[try row.string("stream")] = try row.int("v")
            }
            var appends: [LedgerTransaction.StreamAppend] = []
            for (stream, changes) in Dictionary(
                grouping: known, by: { PresenceEvent.stream(objectIds[$0.installationId]!) })
            {
                let events = changes.sorted { $0.at < $1.at }.map { change in
                    let changed = PresenceChanged(
                        objectId: objectIds[change.installationId]!, installationId: change.installationId,
                        session: change.session, at: LeanDate.format(change.at), reason: change.reason)
                    return NewEvent(change.connected ? .connected(changed) : .disconnected(changed))
                }
                appends.append(.init(tx, stream: stream, expectedVersion: versions[stream] ?? 0, events: events))
            }
            try await LedgerTransaction.append(appends)
        }
    }

    /// Marks the live sessions of this process as heard from now (a heartbeat, not an event), and forgets
    /// heartbeats a day old: their sessions ended long ago.
    public func touch(sessions: [String]) async throws {
        let now = clock.now()
        try await store.pool.query(
            """
            INSERT INTO channel_heartbeats (session, last_seen)
            SELECT s, \(now)::timestamptz FROM unnest(\(sessions)::text[]) AS s
            ON CONFLICT (session) DO UPDATE SET last_seen = excluded.last_seen
            """)
        try await store.pool.query(
            "DELETE FROM channel_heartbeats WHERE last_seen < \(now.addingTimeInterval(-86_400))::timestamptz")
    }

    /// The device's presence, nil when it never connected.
    public func presence(appId: String, objectId: String) async throws -> Presence? {
        try await store.pool.query(
            """
            SELECT p.online, p.since, greatest(p.last_seen, h.last_seen) AS last_seen
            FROM channel_presence p LEFT JOIN channel_heartbeats h ON h.session = p.session
            WHERE p.app_id = \(appId) AND p.object_id = \(objectId)
            """
        ).first.map {
            Presence(connected: $0["online"] == "t", since: try $0.date("since"), lastSeen: try $0.date("last_seen"))
        }
    }
}
