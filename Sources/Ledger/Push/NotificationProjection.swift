import Postgres
import PushCore

/// Projects push streams into `notifications`, the push records (SPEC §4.5). Applied inline, so a push
/// record is readable as soon as its request returns, and its counters are exact at every commit.
public struct NotificationProjection: Projection {
    public let name = "notifications"
    public let tables = ["notifications"]

    public init() {}

    public func handles(_ eventType: String) -> Bool {
        PushEvent.all.contains(eventType) || eventType == InstallationEvent.opened
    }

    public func apply(_ event: ProjectedEvent, on conn: PGConnection, schema: String) async throws {
        let table = "\(schema).notifications"
        switch event.event {
        case .push(let push):
            try await apply(push, appId: event.appId, table: table, on: conn)
        case .installation(.opened(let open)):
            // An app open names its push as `pushId` (its `objectId` is the installation).
            guard let pushId = open.pushId else { return }
            try await conn.enqueue(
                "UPDATE \(unsafeRaw: table) SET opens = opens + 1 WHERE app_id = \(event.appId) AND object_id = \(pushId)"
            )
        default:
            break
        }
    }

    private func apply(_ push: PushLogEvent, appId: String, table: String, on conn: PGConnection) async throws {
        let pushId = push.payload.objectId
        func setStatus(_ status: String, at: String) async throws {
            try await conn.enqueue(
                """
                UPDATE \(unsafeRaw: table) SET status = \(status), updated_at = \(at)::timestamptz
                WHERE app_id = \(appId) AND object_id = \(pushId)
                """)
        }
        switch push {
        case .requested(let requested):
            let request = requested.request
            try await conn.enqueue(
                """
                INSERT INTO \(unsafeRaw: table) (app_id, object_id, notification_id, data, where_query, prod, status,
                    push_time, expiration_time, created_at, updated_at)
                VALUES (\(appId), \(pushId), \(request["notification_id"]?.stringValue), \(request["data"] ?? [:])::jsonb,
                    \(request["where"] ?? [:])::jsonb, \(request["prod"]?.stringValue ?? "prod"),
                    \(requested.status),
                    \(request["push_time"]?.stringValue)::timestamptz, \(request["expiration_time"]?.stringValue)::timestamptz,
                    \(requested.at)::timestamptz, \(requested.at)::timestamptz)
                """)
        case .targeted(let page):
            try await conn.enqueue(
                .reusingPlan(
                    """
                    UPDATE \(unsafeRaw: table) SET devices = devices + \(page.devices), status = \(PushEvent.Status.inQueue),
                        updated_at = \(page.at)::timestamptz
                    WHERE app_id = \(appId) AND object_id = \(pushId)
                    """))
        case .batchDelivered(let b):
            try await applyDelivered(b, appId: appId, table: table, on: conn)
        case .channelAcked, .channelExpired, .channelDropped:
            if let ending = push.channelEnding {
                try await applyChannelResults(ending, appId: appId, table: table, on: conn)
            }
        case .completed(let milestone):
            // Only an open status becomes `done` (`PushLifecycle.openStatuses`): a push stopped at the daily
            // quota keeps saying so once its last batch is sent.
            try await conn.enqueue(
                """
                UPDATE \(unsafeRaw: table) SET updated_at = \(milestone.at)::timestamptz,
                    status = CASE WHEN status = ANY(\(PushLifecycle.openStatuses)::text[]) THEN \(PushEvent.Status.done)
                                  ELSE status END
                WHERE app_id = \(appId) AND object_id = \(pushId)
                """)
        case .expired(let milestone):
            try await setStatus(PushEvent.Status.done, at: milestone.at)
        case .quotaReached(let reached):
            try await setStatus(reached.status, at: reached.at)
        case .failed(let failed):
            try await setStatus(failed.status, at: failed.at)
        case .cancelled(let cancelled):
            try await setStatus(PushEvent.Status.cancelled, at: cancelled.at)
        case .deleted, .purged:
            try await conn.enqueue("DELETE FROM \(unsafeRaw: table) WHERE app_id = \(appId) AND object_id = \(pushId)")
        case .targetingCompleted:
            break
        }
    }

    /// A batch's outcomes added to its push's counters.
    private func applyDelivered(_ b: BatchDelivered, appId: String, table: String, on conn: PGConnection) async throws {
        let reasons = JSON.object(b.reasons.mapValues { .int($0) })
        let vendors = JSON.object((b.vendorSuccesses ?? [:]).mapValues { .int($0) })
        try await conn.enqueue(
            .reusingPlan(
                """
                UPDATE \(unsafeRaw: table) SET successes = successes + \(b.successes), errors = errors + \(b.errors),
                    error_reasons = coalesce((
                        SELECT jsonb_object_agg(k, coalesce((error_reasons ->> k)::bigint, 0)
                                                   + coalesce((\(reasons)::jsonb ->> k)::bigint, 0))
                        FROM jsonb_object_keys(error_reasons || \(reasons)::jsonb) AS k), '{}'),
                    vendor_successes = coalesce((
                        SELECT jsonb_object_agg(k, coalesce((vendor_successes ->> k)::bigint, 0)
                                                   + coalesce((\(vendors)::jsonb ->> k)::bigint, 0))
                        FROM jsonb_object_keys(vendor_successes || \(vendors)::jsonb) AS k), '{}'),
                    invalid_tokens = invalid_tokens + \(b.invalidTokens),
                    ios_successes = ios_successes + \(b.iosSuccesses),
                    android_successes = android_successes + \(b.androidSuccesses),
                    windows_successes = windows_successes + \(b.windowsSuccesses ?? 0), updated_at = \(b.at)::timestamptz
                WHERE app_id = \(appId) AND object_id = \(b.objectId)
                """))
        if let queued = b.queued, queued > 0 {
            try await conn.enqueue(
                """
                UPDATE \(unsafeRaw: table) SET channel_pending = channel_pending + \(queued)
                WHERE app_id = \(appId) AND object_id = \(b.objectId)
                """)
        }
    }

    /// Own-channel messages that ended: acks are successes (per platform), expiries and drops errors with
    /// their reason; either way they are no longer pending.
    private func applyChannelResults(
        _ ending: (results: ChannelResults, errorReason: String?), appId: String, table: String,
        on conn: PGConnection
    ) async throws {
        let r = ending.results
        let n = r.count
        let successes = ending.errorReason == nil ? n : 0
        let reasons: JSON = ending.errorReason.map { .object([$0: .int(n)]) } ?? [:]
        try await conn.enqueue(
            """
            UPDATE \(unsafeRaw: table) SET successes = successes + \(successes), errors = errors + \(n - successes),
                android_successes = android_successes + \(successes > 0 ? r.platforms["android"] ?? 0 : 0),
                windows_successes = windows_successes + \(successes > 0 ? r.platforms["windows"] ?? 0 : 0),
                vendor_successes = jsonb_set(vendor_successes, \(["lcSuccesses"])::text[],
                    to_jsonb(coalesce((vendor_successes ->> 'lcSuccesses')::bigint, 0)
                             + \(successes > 0 ? r.platforms["android"] ?? 0 : 0))),
                error_reasons = coalesce((
                    SELECT jsonb_object_agg(k, coalesce((error_reasons ->> k)::bigint, 0)
                                               + coalesce((\(reasons)::jsonb ->> k)::bigint, 0))
                    FROM jsonb_object_keys(error_reasons || \(reasons)::jsonb) AS k), '{}'),
                channel_pending = channel_pending - \(n), updated_at = \(r.at)::timestamptz
            WHERE app_id = \(appId) AND object_id = \(r.objectId)
            """)
    }

    /// Runs of app opens naming their push (a rebuild's page, a group-committed batch of opens) add their
    /// counts per push in one statement, and so do runs of targeted pages and of delivered batches
    /// (`PushCounterRun`); everything else goes through `apply`.
    public func applyAll(_ events: [ProjectedEvent], on conn: PGConnection, schema: String) async throws {
        try await applyRuns(
            events, on: conn, schema: schema,
            kind: { event in
                guard case .installation(.opened(let open)) = event.event else { return PushCounterRun.kind(event) }
                return open.pushId != nil ? event.type : nil
            }
        ) { kind, run in
            guard kind == InstallationEvent.opened else {
                return PushCounterRun(run).map { counted($0, schema) }
            }
            let pushIds = run.map { event -> String in
                guard case .installation(.opened(let open)) = event.event else { return "" }
                return open.pushId ?? ""
            }
            return .reusingPlan(
                """
                UPDATE \(unsafeRaw: schema).notifications n SET opens = n.opens + c.opens
                FROM (SELECT p, count(*) AS opens FROM unnest(\(pushIds)::text[]) AS p GROUP BY p) c
                WHERE n.app_id = \(run[0].appId) AND n.object_id = c.p
                """)
        }
    }

    /// `apply` of a run of targeted pages (the devices counted, the push in the queue) or of delivered batches
    /// (successes per platform, errors by reason, dead tokens, messages queued for the own channel).
    private func counted(_ run: PushCounterRun, _ schema: String) -> PGQuery {
        guard run.delivered else {
            return .reusingPlan(
                """
                WITH e AS (\(run.rows)), c AS (\(unsafeRaw: PushCounterRun.perPush))
                UPDATE \(unsafeRaw: schema).notifications n SET devices = n.devices + c.devices,
                    status = \(PushEvent.Status.inQueue), updated_at = c.at
                FROM c WHERE n.app_id = \(run.appId) AND n.object_id = c.p
                """)
        }
        return .reusingPlan(
            """
            WITH e AS (\(run.rows)), c AS (\(unsafeRaw: PushCounterRun.perPush))
            UPDATE \(unsafeRaw: schema).notifications n SET successes = n.successes + c.successes,
                errors = n.errors + c.errors,
                error_reasons = coalesce((
                    SELECT jsonb_object_agg(k, coalesce((n.error_reasons ->> k)::bigint, 0)
                                               + coalesce((c.reasons ->> k)::bigint, 0))
                    FROM jsonb_object_keys(n.error_reasons || c.reasons) AS k), '{}'),
                vendor_successes = coalesce((
                    SELECT jsonb_object_agg(k, coalesce((n.vendor_successes ->> k)::bigint, 0)
                                               + coalesce((c.vendors ->> k)::bigint, 0))
                    FROM jsonb_object_keys(n.vendor_successes || c.vendors) AS k), '{}'),
                invalid_tokens = n.invalid_tokens + c.invalid, ios_successes = n.ios_successes + c.ios,
                android_successes = n.android_successes + c.android,
                windows_successes = n.windows_successes + c.windows, channel_pending = n.channel_pending + c.queued,
                updated_at = c.at
            FROM c WHERE n.app_id = \(run.appId) AND n.object_id = c.p
            """)
    }
}
