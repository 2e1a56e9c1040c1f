import Foundation
import Postgres
import PushCore

/// Advances due pushes one keyset page at a time (SPEC §4.3). Each page is one transaction: its targets are
/// appended as `PushTargeted` events of up to `pageSize` each, written as batch rows, and the job's cursor
/// moves, all or nothing, so a crash resumes exactly where the last committed page ended and memory stays flat
/// for any audience.
public struct PushTargeting: Sendable {
    let store: EventStore
    /// Targets per batch.
    let pageSize: Int
    /// Batches a page is cut into. A page holds `pageSize × batchesPerPage` installations, grouped by vendor
    /// lane before it is cut (`batches(of:size:)`), so that a vendor's devices of the page share batches and its
    /// lists fill up: with six vendors evenly mixed, a page of 3,000 gives each about 500 in one batch.
    let batchesPerPage: Int

    public init(store: EventStore, pageSize: Int = PushEvent.batchSize, batchesPerPage: Int = 3) {
        self.store = store
        self.pageSize = pageSize
        self.batchesPerPage = max(1, batchesPerPage)
    }

    /// `targets` cut into batches of at most `size`, an Android vendor's devices of one profile next to each other
    /// (in their page order), every other device where it was. Sorted by (lane, position), so the order is the
    /// same whatever the sort's stability.
    static func batches(of targets: [PushTarget], size: Int) -> [[PushTarget]] {
        let lanes = targets.enumerated().map { index, target -> (lane: String, index: Int) in
            guard case .vendor(let vendor) = DeliveryRoute(target) else { return ("", index) }
            return ("\(vendor.rawValue)\u{0}\(target.profile ?? "")", index)
        }
        let ordered = lanes.sorted { ($0.lane, $0.index) < ($1.lane, $1.index) }.map { targets[$0.index] }
        return stride(from: 0, to: ordered.count, by: size).map { Array(ordered[$0..<min($0 + size, ordered.count)]) }
    }

    /// Pushes whose time has come and which still need targeting (oldest first).
    public func dueJobs(now: Date? = nil, limit: Int = 16) async throws -> [(appId: String, pushId: String)] {
        try await PushLifecycleInterpreter.dueJobs(now: now ?? store.clock.now(), limit: limit, on: store.pool)
    }

    /// Records that targeting `pushId` raised `error`, as `policy` decides: moved back by a backoff, or ended
    /// `failed` with a `PushFailed` event naming the reason. Returns the decision taken.
    @discardableResult
    public func recordFailure(
        appId: String, pushId: String, error: any Error, policy: FanOutFailurePolicy = FanOutFailurePolicy(),
        now: Date? = nil, random: Double = Double.random(in: 0..<1)
    ) async throws -> FanOutFailurePolicy.Decision {
        let now = now ?? store.clock.now()
        let stream = PushEvent.stream(pushId)
        let reason = FanOutError.reason(of: error)
        return try await store.write(appId: appId, metadata: .system("fan-out"), lockKeys: [stream]) { tx in
            var push = try await PushLifecycleInterpreter.load(pushId: pushId, at: now, tx: tx)
            return try await push.perform {
                $0.targetingFailed(kind: FanOutError.kind(of: error), reason: reason, policy: policy, random: random)
            }
        }
    }

    /// Targets one page of a push. Returns true while more pages remain.
    @discardableResult
    public func step(app: App, pushId: String, now: Date? = nil) async throws -> Bool {
        let now = now ?? store.clock.now()
        let stream = PushEvent.stream(pushId)
        let metadata = EventMetadata.system("fan-out")
        // The `limits` lock makes the daily quota exact when several pushes of the app target at once.
        let lockKeys = [stream, UsageEvent.limitsStream]
        return try await store.write(appId: app.appId, metadata: metadata, lockKeys: lockKeys) { tx in
            let conn = tx.connection
            var push = try await PushLifecycleInterpreter.load(pushId: pushId, at: now, readingRequest: true, tx: tx)
            guard push.lifecycle.isDueForTargeting, let job = push.lifecycle.job, let stored = push.request else {
                return false
            }
            if push.lifecycle.hasExpired {
                try await push.perform { $0.expire() }
                return false
            }
            let request = try PushRequest.stored(stored)
            let at = LeanDate.format(now)
            guard case .query(let whereJSON) = request.audience else { return false }
            let condition = try Self.targetCondition(app: app, whereJSON: whereJSON, now: now)
            let cursor = job.cursor
            if push.lifecycle.needsDevAudienceCount(prod: request.prod) {
                let total = try await conn.query("SELECT count(*) AS n FROM installations WHERE \(condition)")[0].int(
                    "n")
                try await push.perform { $0.devAudienceCounted(total) }
                guard push.lifecycle.isDueForTargeting else { return false }
            }
            let quota = app.intSetting("daily_push_quota")
            let allowed = min(
                Int64(pageSize * batchesPerPage),
                max(0, quota - (try await PushLimits.devicesToday(app: app, now: now, on: conn))))
            let rows = try await conn.query(
                """
                SELECT object_id, device_type, device_token, registration_id, subscription_uri, device_profile, badge,
                       data ->> 'vendor' AS vendor, data ->> 'apnsTeamId' AS apns_team, data ->> 'apnsTopic' AS apns_topic
                FROM installations
                WHERE \(condition) AND object_id > \(cursor ?? "")
                ORDER BY object_id LIMIT \(allowed)
                """)
            // The quota is used up while targets remain: stop here; what was targeted is still sent.
            var stopsAtQuota = false
            if allowed == 0 {
                stopsAtQuota =
                    !(try await conn.query(
                        "SELECT 1 AS one FROM installations WHERE \(condition) AND object_id > \(cursor ?? "") LIMIT 1"
                    ).isEmpty)
            }
            let pushData = try PushData(request.data)
            // Asked once per route a page holds, not per row. A target with a vendor outside SPEC §12.3's list
            // is kept, to be counted as an error (UnknownVendor), never dropped silently.
            var hasContent: [DeliveryRoute: Bool] = [:]
            var targets: [PushTarget] = []
            for row in rows {
                let type = try row.string("device_type")
                guard let platform = PushPlatform(rawValue: type) else { continue }
                let token = row[platform.tokenColumn] ?? ""
                let vendor = platform == .android ? row["vendor"] : nil
                let route = DeliveryRoute(deviceType: type, vendor: vendor, token: token)
                if hasContent[route] == nil {
                    hasContent[route] = pushData.content(for: route) != nil || route.isUnknownVendor
                }
                guard hasContent[route] == true else { continue }
                targets.append(
                    PushTarget(
                        objectId: try row.string("object_id"), deviceType: type, token: token,
                        profile: row["device_profile"], badge: nil, vendor: vendor,
                        apnsTeam: platform == .ios ? row["apns_team"] : nil,
                        apnsTopic: platform == .ios ? row["apns_topic"] : nil))
            }
            if pushData.usesBadgeIncrement(for: .ios) {
                targets = try await incrementBadges(targets, tx: tx, at: at)
            }
            let more = allowed > 0 && rows.count == allowed
            let page = PushLifecycle.Page(
                batches: Self.batches(of: targets, size: pageSize), cursor: rows.last?["object_id"], morePages: more,
                stoppedAtQuota: stopsAtQuota ? quota : nil)
            try await push.perform { $0.pageTargeted(page) }
            return more
        }
    }

    /// The SQL condition for "valid installations of this app matching `where`" (SPEC §4.3).
    /// - Parameter objectsTable: where sub-queries read other classes: the live `objects`, or a replay's copy
    ///   folded to its instant.
    public static func targetCondition(
        app: App, whereJSON: JSON, now: Date, objectsTable: String = "objects"
    ) throws -> PGQuery {
        let compiled = try Self.compiled(whereJSON, appId: app.appId, objectsTable: objectsTable)
        let ttlDays = max(1, app.intSetting("installation_ttl_days"))
        let oldest = now.addingTimeInterval(-Double(ttlDays) * 86400)
        return "app_id = \(app.appId) AND valid AND updated_at > \(oldest)::timestamptz AND (\(compiled))"
    }

    static func compiled(
        _ whereJSON: JSON, appId: String, objectsTable: String = "objects"
    ) throws(LeanError) -> BoundSQL {
        do {
            return try WhereCompiler(
                // The request's sub-queries were held to its caller's rights when it was accepted.
                schema: .installations,
                related: RelatedClasses(appId: appId, objectsTable: objectsTable, rights: .master)
            ).compile(whereJSON)
        } catch {
            throw error.leanError
        }
    }

    /// `badge: "Increment"`: each iOS target's stored badge goes up by one (an event per installation) and
    /// the new value is what the device is sent.
    private func incrementBadges(
        _ targets: [PushTarget], tx: LedgerTransaction, at: String
    ) async throws -> [PushTarget] {
        let ios = targets.filter { $0.deviceType == PushPlatform.ios.rawValue }.map(\.objectId)
        guard !ios.isEmpty else { return targets }
        try await tx.lock(ios.map(InstallationEvent.stream))
        let rows = try await tx.connection.query(
            """
            SELECT object_id, badge, version FROM installations
            WHERE app_id = \(tx.appId) AND object_id = ANY(\(ios)::text[])
            """)
        var newBadge: [String: Int64] = [:]
        for row in rows {
            let id = try row.string("object_id")
            // Saturating: a stored badge at the top of the range stays there instead of trapping the fan-out.
            let stored = row.optionalInt64("badge") ?? 0
            let badge = stored == .max ? stored : stored + 1
            newBadge[id] = badge
            try await tx.append(
                stream: InstallationEvent.stream(id), expectedVersion: try row.int("version"),
                [NewEvent(.badgeIncremented(BadgeChanged(objectId: id, badge: badge, at: at)))])
        }
        return targets.map { t in
            var t = t
            if let b = newBadge[t.objectId] { t.badge = b }
            return t
        }
    }
}
