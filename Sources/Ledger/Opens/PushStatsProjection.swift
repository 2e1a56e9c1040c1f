import Postgres
import PushCore

/// Projects pushes, deliveries and app opens into the open-rate tables (SPEC §6, issue 4 point 2):
/// `push_stats` (per push; survives the purge of the push record so reports keep their aggregates),
/// `push_opens` (per push and opening installation: first open, time to open) and `daily_opens` (per local
/// day and platform). A push open counts once per installation in the unique figures.
public struct PushStatsProjection: Projection {
    public let name = "push_stats"
    public let tables = ["push_stats", "push_opens", "daily_opens"]

    public init() {}

    public func handles(_ eventType: String) -> Bool {
        switch eventType {
        case PushEvent.requested, PushEvent.targeted, PushEvent.batchDelivered, InstallationEvent.opened,
            PushEvent.channelAcked, PushEvent.channelExpired, PushEvent.channelDropped:
            return true
        default: return false
        }
    }

    public func apply(_ event: ProjectedEvent, on conn: PGConnection, schema: String) async throws {
        let app = event.appId
        let stats = "\(schema).push_stats"
        switch event.event {
        case .push(.requested(let requested)):
            try await conn.enqueue(
                """
                INSERT INTO \(unsafeRaw: stats) (app_id, push_id, notification_id, created_at)
                VALUES (\(app), \(requested.objectId), \(requested.request["notification_id"]?.stringValue),
                        \(requested.at)::timestamptz)
                """)
        case .push(.targeted(let page)):
            try await conn.enqueue(
                .reusingPlan(
                    """
                    UPDATE \(unsafeRaw: stats) SET devices = devices + \(page.devices)
                    WHERE app_id = \(app) AND push_id = \(page.objectId)
                    """))
        case .push(.batchDelivered(let b)):
            let vendors = JSON.object((b.vendorSuccesses ?? [:]).mapValues { .int($0) })
            try await conn.enqueue(
                .reusingPlan(
                    """
                    UPDATE \(unsafeRaw: stats) SET successes = successes + \(b.successes), errors = errors + \(b.errors),
                        ios_successes = ios_successes + \(b.iosSuccesses),
                        android_successes = android_successes + \(b.androidSuccesses),
                        windows_successes = windows_successes + \(b.windowsSuccesses ?? 0),
                        vendor_successes = (SELECT \(unsafeRaw: PushCounterRun.addedCounts("vendor_successes", "x.v"))
                                            FROM (SELECT \(vendors)::jsonb AS v) AS x)
                    WHERE app_id = \(app) AND push_id = \(b.objectId)
                    """))
            let counts = [
                (PushPlatform.ios, b.iosSuccesses), (.android, b.androidSuccesses), (.windows, b.windowsSuccesses ?? 0),
            ]
            try await addDaily(
                app: app, at: b.at, "successes", counts.map { ($0.rawValue, $1) }, on: conn, schema: schema)
        case .push(let push):
            if let ending = push.channelEnding {
                try await applyChannelResults(ending, appId: app, on: conn, schema: schema)
            }
        case .installation(.opened(let open)):
            try await applyOpen(open, appId: app, on: conn, schema: schema)
        default:
            break
        }
    }

    private func applyOpen(_ open: AppOpened, appId app: String, on conn: PGConnection, schema: String) async throws {
        let at = open.at
        let platform = open.platform ?? ""
        guard let pushId = open.pushId else {
            try await addDaily(app: app, at: at, "app_opens", [(platform, 1)], on: conn, schema: schema)
            return
        }
        // One statement, so it can be queued with the others: `xmax = 0` tells a fresh insert from an update
        // (the first open of this push on this installation), and the counters add 1 or 0 for uniqueness.
        let day = try await LocalTime.of(appId: app, schema: schema, on: conn).day(at)
        try await conn.enqueue(
            """
            WITH opened AS (
                INSERT INTO \(unsafeRaw: schema).push_opens
                    (app_id, push_id, installation_id, platform, first_open_at, seconds_to_open, opens)
                VALUES (\(app), \(pushId), \(open.objectId), \(platform), \(at)::timestamptz,
                        extract(epoch FROM \(at)::timestamptz - \(open.deliveredAt)::timestamptz), 1)
                ON CONFLICT (app_id, push_id, installation_id) DO UPDATE SET opens = push_opens.opens + 1
                RETURNING (xmax = 0)::int AS first),
            counted AS (
                UPDATE \(unsafeRaw: schema).push_stats
                SET opens = opens + 1, unique_opens = unique_opens + (SELECT first FROM opened)
                WHERE app_id = \(app) AND push_id = \(pushId))
            INSERT INTO \(unsafeRaw: schema).daily_opens (app_id, day, platform, push_opens, unique_push_opens)
            SELECT \(app), \(day), \(platform), 1, first FROM opened
            ON CONFLICT (app_id, day, platform) DO UPDATE SET push_opens = daily_opens.push_opens + 1,
                unique_push_opens = daily_opens.unique_push_opens + excluded.unique_push_opens
            """)
    }

    /// Adds to one counter of each platform's local day (platforms with nothing to add are left alone).
    private func addDaily(
        app: String, at: String?, _ column: String, _ amounts: [(platform: String, amount: Int64)],
        on conn: PGConnection, schema: String
    ) async throws {
        let amounts = amounts.filter { $0.amount > 0 }
        guard !amounts.isEmpty else { return }
        let day = try await LocalTime.of(appId: app, schema: schema, on: conn).day(at)
        for (platform, amount) in amounts {
            try await conn.enqueue(
                .reusingPlan(
                    """
                    INSERT INTO \(unsafeRaw: schema).daily_opens (app_id, day, platform, \(unsafeRaw: column))
                    VALUES (\(app), \(day), \(platform), \(amount))
                    ON CONFLICT (app_id, day, platform) DO UPDATE
                        SET \(unsafeRaw: column) = daily_opens.\(unsafeRaw: column) + \(amount)
                    """))
        }
    }

    /// Own-channel messages that ended: acks count as successes of their platform, the rest as errors.
    private func applyChannelResults(
        _ ending: (results: ChannelResults, errorReason: String?), appId: String, on conn: PGConnection,
        schema: String
    ) async throws {
        let r = ending.results
        let acked = ending.errorReason == nil
        let android = acked ? r.platforms["android"] ?? 0 : 0
        let windows = acked ? r.platforms["windows"] ?? 0 : 0
        // Acked Android messages are the own channel's successes (`lcSuccesses`, SPEC §12.3).
        let ownChannel: JSON = android > 0 ? [AndroidVendor.lc.counter: .int(android)] : [:]
        try await conn.enqueue(
            """
            UPDATE \(unsafeRaw: schema).push_stats SET successes = successes + \(acked ? r.count : 0),
                errors = errors + \(acked ? 0 : r.count), android_successes = android_successes + \(android),
                windows_successes = windows_successes + \(windows),
                vendor_successes = (SELECT \(unsafeRaw: PushCounterRun.addedCounts("vendor_successes", "x.v"))
                                    FROM (SELECT \(ownChannel)::jsonb AS v) AS x)
            WHERE app_id = \(appId) AND push_id = \(r.objectId)
            """)
        guard acked else { return }
        try await addDaily(
            app: appId, at: r.at, "successes", r.platforms.sorted(by: { $0.key < $1.key }).map { ($0.key, $0.value) },
            on: conn, schema: schema)
    }

    /// Runs of app opens naming their push go in one statement (`openAll`), and so do runs of targeted pages and
    /// of delivered batches (`counted`); everything else through `apply`.
    public func applyAll(_ events: [ProjectedEvent], on conn: PGConnection, schema: String) async throws {
        try await applyRuns(
            events, on: conn, schema: schema,
            kind: { event in
                guard case .installation(.opened(let open)) = event.event else { return PushCounterRun.kind(event) }
                return open.pushId != nil ? event.type : nil
            }
        ) { kind, run in
            let local = try await LocalTime.of(appId: run[0].appId, schema: schema, on: conn)
            guard kind == InstallationEvent.opened else {
                return PushCounterRun(run).map { counted($0, schema, local: local) }
            }
            return openAll(run, schema: schema, local: local)
        }
    }

    /// `apply` of a run of targeted pages (devices) or of delivered batches (successes per platform, also on
    /// their local days, and errors).
    private func counted(_ run: PushCounterRun, _ schema: String, local: LocalTime) -> PGQuery {
        guard run.delivered else {
            return .reusingPlan(
                """
                WITH e AS (\(run.rows)), c AS (\(unsafeRaw: PushCounterRun.perPush))
                UPDATE \(unsafeRaw: schema).push_stats s SET devices = s.devices + c.devices
                FROM c WHERE s.app_id = \(run.appId) AND s.push_id = c.p
                """)
        }
        return .reusingPlan(
            """
            WITH e AS (\(run.rows)), c AS (\(unsafeRaw: PushCounterRun.perPush)),
            counted AS (
                UPDATE \(unsafeRaw: schema).push_stats s SET successes = s.successes + c.successes,
                    errors = s.errors + c.errors, ios_successes = s.ios_successes + c.ios,
                    android_successes = s.android_successes + c.android,
                    windows_successes = s.windows_successes + c.windows,
                    vendor_successes = \(unsafeRaw: PushCounterRun.addedCounts("s.vendor_successes", "c.vendors"))
                FROM c WHERE s.app_id = \(run.appId) AND s.push_id = c.p)
            INSERT INTO \(unsafeRaw: schema).daily_opens (app_id, day, platform, successes)
            SELECT \(run.appId), \(local.day(ofColumn: "e.at")), v.platform, sum(v.n)
            FROM e, LATERAL (VALUES (\(PushPlatform.ios.rawValue), e.ios), (\(PushPlatform.android.rawValue), e.android),
                                    (\(PushPlatform.windows.rawValue), e.windows)) AS v(platform, n)
            WHERE v.n > 0 GROUP BY 2, 3
            ON CONFLICT (app_id, day, platform) DO UPDATE SET successes = daily_opens.successes + excluded.successes
            """)
    }

    /// `applyOpen` for several push opens of one app at once. Applied in turn, the first open of a push on an
    /// installation inserts its `push_opens` row (its time, platform and time to open) and each later one adds
    /// to it; here each (push, installation) is one upsert carrying its first open and its count, and
    /// `xmax = 0` again tells the pairs opened for the first time. Push opens count on the local day of each
    /// open, unique ones on the day and platform of the first.
    private func openAll(_ events: [ProjectedEvent], schema: String, local: LocalTime) -> PGQuery {
        let opens = events.compactMap { event -> AppOpened? in
            guard case .installation(.opened(let open)) = event.event else { return nil }
            return open
        }
        func texts(_ value: (AppOpened) -> String?) -> [String] { opens.map { value($0) ?? "" } }
        let app = events[0].appId
        return .reusingPlan(
            """
            WITH e AS (
                SELECT p, i, pl, nullif(at, '')::timestamptz AS at, dl, ord, count(*) OVER (PARTITION BY p, i) AS n
                FROM unnest(\(texts(\.pushId))::text[], \(texts(\.objectId))::text[], \(texts(\.platform))::text[],
                            \(texts(\.at))::text[], \(texts(\.deliveredAt))::text[])
                    WITH ORDINALITY AS x(p, i, pl, at, dl, ord)),
            firsts AS (SELECT DISTINCT ON (p, i) * FROM e ORDER BY p, i, ord),
            opened AS (
                INSERT INTO \(unsafeRaw: schema).push_opens
                    (app_id, push_id, installation_id, platform, first_open_at, seconds_to_open, opens)
                SELECT \(app), p, i, pl, at, extract(epoch FROM at - nullif(dl, '')::timestamptz), n FROM firsts
                ON CONFLICT (app_id, push_id, installation_id) DO UPDATE SET opens = push_opens.opens + excluded.opens
                RETURNING push_id, installation_id, (xmax = 0)::int AS first),
            per_push AS (
                SELECT e.p, count(*) AS opens,
                    (SELECT coalesce(sum(o.first), 0) FROM opened o WHERE o.push_id = e.p) AS unique_opens
                FROM e GROUP BY e.p),
            counted AS (
                UPDATE \(unsafeRaw: schema).push_stats s
                SET opens = s.opens + c.opens, unique_opens = s.unique_opens + c.unique_opens
                FROM per_push c WHERE s.app_id = \(app) AND s.push_id = c.p),
            local AS (
                SELECT \(local.day(ofColumn: "e.at")) AS day, e.pl, 1 AS opens,
                    CASE WHEN f.ord = e.ord THEN o.first ELSE 0 END AS first
                FROM e JOIN firsts f USING (p, i) JOIN opened o ON o.push_id = e.p AND o.installation_id = e.i)
            INSERT INTO \(unsafeRaw: schema).daily_opens (app_id, day, platform, push_opens, unique_push_opens)
            SELECT \(app), day, pl, sum(opens), sum(first) FROM local GROUP BY day, pl
            ON CONFLICT (app_id, day, platform) DO UPDATE SET push_opens = daily_opens.push_opens + excluded.push_opens,
                unique_push_opens = daily_opens.unique_push_opens + excluded.unique_push_opens
            """)
    }
}
