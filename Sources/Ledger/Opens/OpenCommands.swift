import Foundation
import Postgres
import PushCore

/// Records app opens (SPEC §6): each is an `AppOpened` event on the installation's stream, attributed to a
/// push when it is a push open, and bumps the installation's `updatedAt` so it stays valid for targeting.
/// The attribution is decided once, here, and written into the event, so projections never re-decide it.
public struct OpenCommands: Sendable {
    let store: EventStore

    public init(store: EventStore) { self.store = store }

    /// What was recorded for one open.
    public struct Recorded: Sendable, Equatable {
        public let installationId: String
        /// The push the open was attributed to, if any.
        public let pushId: String?
        public let attribution: String?
    }

    /// Records opens all or nothing, in one transaction.
    public func record(
        appId: String, _ opens: [AppOpen], metadata: EventMetadata, now: Date? = nil
    ) async throws
        -> [Recorded]
    {
        let now = now ?? store.clock.now()
        var resolved: [(AppOpen, String)] = []
        for open in opens {
            guard (open.at ?? now) <= now.addingTimeInterval(AppOpen.allowedClockSkew) else {
                throw LeanError.invalidParameter("The open time is in the future.")
            }
            guard let objectId = try await resolve(open.installation, appId: appId) else {
                throw LeanError.notFound("No installation found for this open.")
            }
            resolved.append((open, objectId))
        }
        guard !resolved.isEmpty else { return [] }
        let streams = Array(Set(resolved.map { InstallationEvent.stream($0.1) })).sorted()
        return try await store.write(appId: appId, metadata: metadata, lockKeys: streams) { tx in
            var recorded: [Recorded] = []
            for (open, objectId) in resolved {
                recorded.append(try await append(open, objectId: objectId, now: now, tx: tx))
            }
            return recorded
        }
    }

    public func record(
        appId: String, _ open: AppOpen, metadata: EventMetadata, now: Date? = nil
    ) async throws
        -> Recorded
    {
        try await record(appId: appId, [open], metadata: metadata, now: now)[0]
    }

    private func append(_ open: AppOpen, objectId: String, now: Date, tx: LedgerTransaction) async throws -> Recorded {
        let conn = tx.connection
        let appId = tx.appId
        let openedAt = open.at ?? now
        guard
            let row = try await conn.query(
                """
                SELECT version, updated_at, device_type FROM installations
                WHERE app_id = \(appId) AND object_id = \(objectId)
                """
            ).first
        else { throw LeanError.notFound("No installation found for this open.") }
        var pushId: String?, attribution: String?, deliveredAt: String?
        if open.kind == .push {
            (pushId, attribution, deliveredAt) = try await attribute(
                open, objectId: objectId, appId: appId, openedAt: openedAt, on: conn)
        }
        // updatedAt only ever moves forward: a late report of an old open does not age the installation.
        let updatedAt = max(try row.date("updated_at"), openedAt)
        let opened = AppOpened(
            objectId: objectId, at: LeanDate.format(openedAt), updatedAt: LeanDate.format(updatedAt),
            kind: pushId == nil ? AppOpen.Kind.app.rawValue : AppOpen.Kind.push.rawValue,
            platform: try row.string("device_type"), pushId: pushId, attribution: attribution, deliveredAt: deliveredAt)
        let stream = InstallationEvent.stream(objectId)
        try await tx.append(stream: stream, expectedVersion: try row.int("version"), [NewEvent(.opened(opened))])
        return Recorded(installationId: objectId, pushId: pushId, attribution: attribution)
    }

    private func resolve(_ installation: AppOpen.Installation, appId: String) async throws -> String? {
        switch installation {
        case .objectId(let id):
            return try await store.pool.query(
                "SELECT object_id FROM installations WHERE app_id = \(appId) AND object_id = \(id)"
            ).first?["object_id"]
        case .installationId(let id):
            return try await store.pool.query(
                "SELECT object_id FROM installations WHERE app_id = \(appId) AND installation_id = \(id)"
            ).first?["object_id"]
        }
    }

    /// The explicit `_nid` when it names a push of this app; else the last push delivered to the installation
    /// within 24 hours before the open; else none (the open counts as a plain app open).
    private func attribute(
        _ open: AppOpen, objectId: String, appId: String, openedAt: Date, on conn: PGConnection
    )
        async throws -> (String?, String?, String?)
    {
        let last = try await conn.query(
            """
            SELECT push_id, delivered_at FROM last_deliveries WHERE app_id = \(appId) AND installation_id = \(objectId)
            """
        ).first
        let lastPush = last?["push_id"]
        let lastDelivered = last?.optionalDate("delivered_at")
        if let nid = open.notificationId, !nid.isEmpty,
            !(try await conn.query("SELECT 1 AS one FROM push_stats WHERE app_id = \(appId) AND push_id = \(nid)")
                .isEmpty)
        {
            // The delivery time is known when that push is the last one delivered here.
            let delivered = lastPush == nid ? lastDelivered.map(LeanDate.format) : nil
            return (nid, "explicit", delivered)
        }
        if let lastPush, let lastDelivered, lastDelivered <= openedAt,
            openedAt.timeIntervalSince(lastDelivered) <= AppOpen.attributionWindow
        {
            return (lastPush, "recent", LeanDate.format(lastDelivered))
        }
        return (nil, nil, nil)
    }
}
