import Foundation
import Postgres
import PushCore

/// The push commands (SPEC §4): request, cancel, delete. Each appends its events through the push's lifecycle,
/// with the fan-out work rows written in the same transaction; `PushQueries` reads what they recorded.
public struct PushCommands: Sendable {
    let store: EventStore

    public init(store: EventStore) { self.store = store }

    /// The time pushes are judged and stamped by.
    public var clock: ServiceClock { store.clock }

    public struct Accepted: Sendable {
        public let objectId: String
        public let createdAt: String
    }

    /// Records a push request. A `req_id` seen in the last five minutes answers the first request's
    /// objectId and records nothing.
    public func request(
        _ request: PushRequest, app: App, metadata: EventMetadata, now: Date? = nil
    ) async throws
        -> Accepted
    {
        let now = now ?? store.clock.now()
        let reqKey = request.requestId.map { "req:\($0)" }
        let pushId = RandomID.make()
        let at = LeanDate.format(now)
        let lockKeys = [reqKey, UsageEvent.limitsStream].compactMap { $0 }
        let outcome = try await store.write(appId: app.appId, metadata: metadata, lockKeys: lockKeys) { tx -> Outcome in
            let conn = tx.connection
            var push = PushLifecycleInterpreter(acceptedPush: pushId, at: now, tx: tx)
            if case .query(let whereJSON) = request.audience {
                // A pattern PostgreSQL refuses is the request's fault (code 102), not a failure for the fan-out.
                try await conn.checkRegexes(of: try PushTargeting.compiled(whereJSON, appId: app.appId))
                try await APNsTeamCheck.check(request, app: app, listed: nil, now: now, on: conn)
            }
            if let requestId = request.requestId {
                let seen = try await conn.query(
                    """
                    SELECT r.push_id, n.created_at FROM push_request_ids r
                    LEFT JOIN notifications n ON n.app_id = r.app_id AND n.object_id = r.push_id
                    WHERE r.app_id = \(app.appId) AND r.req_id = \(requestId)
                      AND r.created_at > \(now)::timestamptz - interval '5 minutes'
                    """)
                if let row = seen.first {
                    let created = row.optionalDate("created_at").map(LeanDate.format) ?? at
                    return .accepted(Accepted(objectId: try row.string("push_id"), createdAt: created))
                }
            }
            let remaining: Int64
            switch try await PushLimits(app: app, now: now).check(on: conn) {
            case .allowed(let devices):
                remaining = devices
            case .refused(let error, let event):
                // The refusal is recorded (and committed); the caller then answers the error.
                if let event { try await PushLimits.record(event, tx: tx) }
                return .refused(error)
            }
            if request.isScheduled {
                let pending = try await PushLifecycleInterpreter.scheduledCount(appId: app.appId, on: conn)
                guard pending < app.intSetting("max_scheduled") else {
                    throw LeanError.invalidParameter(
                        "Too many scheduled pushes: at most \(app.intSetting("max_scheduled")) may wait at once.")
                }
            }
            let listed: PushLifecycle.Listed?
            if case .devices(let platform, let ids) = request.audience {
                if PushLifecycle.expiredOnArrival(expiration: request.expiration, at: now) {
                    listed = .expired
                } else {
                    let targets = try await Self.deviceTargets(
                        appId: app.appId, platform: platform, ids: ids, vendor: request.vendor, on: conn)
                    try await APNsTeamCheck.check(request, app: app, listed: targets, now: now, on: conn)
                    listed = .targets(targets, remaining: remaining, quota: app.intSetting("daily_push_quota"))
                }
            } else {
                listed = nil
            }
            let acceptance = PushLifecycle.Acceptance(
                request: request.json, scheduled: request.isScheduled,
                sendAt: request.isScheduled ? request.pushTime! : now, expiresAt: request.expiration, listed: listed)
            try await push.perform { $0.accept(acceptance) }
            if let requestId = request.requestId {
                try await conn.query(
                    """
                    INSERT INTO push_request_ids (app_id, req_id, push_id, created_at) VALUES
                        (\(app.appId), \(requestId), \(pushId), \(now)::timestamptz)
                    ON CONFLICT (app_id, req_id) DO UPDATE SET push_id = excluded.push_id, created_at = excluded.created_at
                    """)
            }
            return .accepted(Accepted(objectId: pushId, createdAt: at))
        }
        switch outcome {
        case .accepted(let accepted): return accepted
        case .refused(let error): throw error
        }
    }

    private enum Outcome: Sendable {
        case accepted(Accepted)
        case refused(LeanError)
    }

    /// `/push/devices` targets: iOS ids are device tokens; Android ids are registrationIds or installationIds;
    /// Windows ids are subscriptionUris or installationIds. Tokens a provider declared invalid are dropped.
    /// - Parameter vendor: the Android vendor `ids` belong to (`/push/devices`' `vendor`): an id that is no
    ///   installation's is taken for that vendor's token, and a known one is sent through that vendor.
    static func deviceTargets(
        appId: String, platform: PushPlatform, ids: [String], vendor: AndroidVendor? = nil, on conn: PGConnection
    ) async throws
        -> [PushTarget]
    {
        let unique = Array(NSOrderedSet(array: ids)) as! [String]
        let known = try await conn.query(
            """
            SELECT object_id, installation_id, device_token, registration_id, subscription_uri, device_profile, badge,
                   data ->> 'vendor' AS vendor, data ->> 'apnsTeamId' AS apns_team, data ->> 'apnsTopic' AS apns_topic
            FROM installations
            WHERE app_id = \(appId) AND device_type = \(platform.rawValue)
              AND (device_token = ANY(\(unique)::text[]) OR installation_id = ANY(\(unique)::text[])
                   OR registration_id = ANY(\(unique)::text[]) OR subscription_uri = ANY(\(unique)::text[]))
            """)
        var byId: [String: PGRow] = [:]
        for row in known {
            for key in ["device_token", "installation_id", "registration_id", "subscription_uri"] {
                if let v = row[key] { byId[v] = row }
            }
        }
        let invalid = Set(
            try await conn.query(
                "SELECT token FROM invalid_tokens WHERE app_id = \(appId) AND token = ANY(\(unique)::text[])"
            ).map { try $0.string("token") })
        var targets: [PushTarget] = []
        for id in unique {
            let row = byId[id]
            let token: String
            switch platform {
            case .ios: token = id
            case .android: token = row?["registration_id"] ?? (row == nil ? id : "")
            // An unknown id is only taken for a channel URI when it is one: the server POSTs to it.
            case .windows:
                token =
                    row?["subscription_uri"]
                    ?? (row == nil && HTTPSURL(id) != nil ? id : "")
            }
            if invalid.contains(token) { continue }
            targets.append(
                PushTarget(
                    objectId: row?["object_id"] ?? "", deviceType: platform.rawValue, token: token,
                    profile: row?["device_profile"], badge: nil,
                    vendor: platform == .android ? vendor?.rawValue ?? row?["vendor"] : nil,
                    apnsTeam: platform == .ios ? row?["apns_team"] : nil,
                    apnsTopic: platform == .ios ? row?["apns_topic"] : nil))
        }
        return targets
    }

    /// Cancels a scheduled push by its schedule id (`DELETE /1.1/scheduledPushMessages/:id`).
    public func cancelScheduled(appId: String, scheduleId: Int64, metadata: EventMetadata) async throws {
        guard
            let pushId = try await PushLifecycleInterpreter.scheduledPushId(
                appId: appId, scheduleId: scheduleId, on: store.pool)
        else { throw LeanError.notFound("No scheduled push with id \(scheduleId).") }
        try await cancel(appId: appId, pushId: pushId, onlyScheduled: true, delete: false, metadata: metadata)
    }

    /// The console's cancel button: stops a scheduled or queued push and keeps its record, unlike DELETE.
    public func cancel(appId: String, pushId: String, metadata: EventMetadata) async throws {
        try await cancel(appId: appId, pushId: pushId, onlyScheduled: false, delete: false, metadata: metadata)
    }

    /// `DELETE /1.1/notifications/:id`: cancels what is still queued and removes the record.
    public func delete(appId: String, pushId: String, metadata: EventMetadata) async throws {
        try await cancel(appId: appId, pushId: pushId, onlyScheduled: false, delete: true, metadata: metadata)
    }

    private func cancel(
        appId: String, pushId: String, onlyScheduled: Bool, delete: Bool, metadata: EventMetadata
    )
        async throws
    {
        let stream = PushEvent.stream(pushId)
        try await store.write(appId: appId, metadata: metadata, lockKeys: [stream]) { tx in
            let exists =
                try await tx.connection.query(
                    "SELECT 1 FROM notifications WHERE app_id = \(appId) AND object_id = \(pushId)"
                ).count == 1
            guard try await tx.currentVersion(of: stream) > 0, exists else {
                throw LeanError.notFound("No push with id \(pushId).")
            }
            var push = try await PushLifecycleInterpreter.load(pushId: pushId, at: store.clock.now(), tx: tx)
            try await push.perform { $0.cancel(onlyScheduled: onlyScheduled, delete: delete) }
        }
    }
}
