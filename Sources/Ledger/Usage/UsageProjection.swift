import Postgres
import PushCore

/// Projects push calls, targeted devices, deliveries and limit decisions into the per-app counters that
/// billing and the limits read (SPEC §4.8): `daily_usage`, `minute_calls` and `push_bans`. Applied inline,
/// so a limit check made under the app's `limits` lock sees every call committed before it.
public struct UsageProjection: Projection {
    public let name = "usage"
    public let tables = ["daily_usage", "minute_calls", "push_bans"]

    public init() {}

    public func handles(_ eventType: String) -> Bool {
        switch eventType {
        case PushEvent.requested, PushEvent.targeted, PushEvent.batchDelivered: return true
        default: return UsageEvent.all.contains(eventType)
        }
    }

    public func apply(_ event: ProjectedEvent, on conn: PGConnection, schema: String) async throws {
        let app = event.appId
        let at: String?
        switch event.event {
        case .push(let push): at = push.payload.at
        case .usage(let usage): at = usage.at
        default: return
        }
        let local = try await LocalTime.of(appId: app, schema: schema, on: conn)
        let day = local.day(at)
        func add(_ column: String, _ amount: Int64) async throws {
            try await conn.enqueue(
                .reusingPlan(
                    """
                    INSERT INTO \(unsafeRaw: schema).daily_usage (app_id, day, \(unsafeRaw: column))
                    VALUES (\(app), \(day), \(amount))
                    ON CONFLICT (app_id, day) DO UPDATE SET \(unsafeRaw: column) = daily_usage.\(unsafeRaw: column) + \(amount)
                    """))
        }
        switch event.event {
        case .push(.requested):
            // One call in its minute; the day's peak is the busiest minute so far.
            try await conn.enqueue(
                """
                WITH m AS (
                    INSERT INTO \(unsafeRaw: schema).minute_calls (app_id, minute, calls)
                    VALUES (\(app), \(local.minute(at)), 1)
                    ON CONFLICT (app_id, minute) DO UPDATE SET calls = minute_calls.calls + 1
                    RETURNING minute, calls)
                INSERT INTO \(unsafeRaw: schema).daily_usage (app_id, day, calls, peak_calls_per_minute)
                SELECT \(app), m.minute::date, 1, m.calls FROM m
                ON CONFLICT (app_id, day) DO UPDATE SET calls = daily_usage.calls + 1,
                    peak_calls_per_minute = greatest(daily_usage.peak_calls_per_minute, excluded.peak_calls_per_minute)
                """)
        case .push(.targeted(let page)):
            try await add("devices", page.devices)
        case .push(.batchDelivered(let delivered)):
            try await add("successes", delivered.successes)
        case .usage(.rateLimited(let limited)):
            try await add("rate_limit_bans", 1)
            try await conn.enqueue(
                """
                INSERT INTO \(unsafeRaw: schema).push_bans (app_id, banned_until)
                VALUES (\(app), \(limited.bannedUntil)::timestamptz)
                ON CONFLICT (app_id) DO UPDATE SET banned_until = excluded.banned_until
                """)
        case .usage(.quotaRefused):
            try await add("quota_refusals", 1)
        case .usage(.dayClosed(let closed)):
            try await conn.enqueue(
                """
                INSERT INTO \(unsafeRaw: schema).daily_usage (app_id, day, closed) VALUES (\(app), \(closed.day)::date, true)
                ON CONFLICT (app_id, day) DO UPDATE SET closed = true
                """)
        default:
            break
        }
    }

    /// Runs of targeted pages and of delivered batches add their devices or successes per local day in one
    /// statement (`PushCounterRun`); everything else goes through `apply`.
    public func applyAll(_ events: [ProjectedEvent], on conn: PGConnection, schema: String) async throws {
        try await applyRuns(events, on: conn, schema: schema, kind: PushCounterRun.kind) { _, events in
            guard let run = PushCounterRun(events) else { return nil }
            let column = run.delivered ? "successes" : "devices"
            let local = try await LocalTime.of(appId: run.appId, schema: schema, on: conn)
            return .reusingPlan(
                """
                WITH e AS (\(run.rows))
                INSERT INTO \(unsafeRaw: schema).daily_usage (app_id, day, \(unsafeRaw: column))
                SELECT \(run.appId), \(local.day(ofColumn: "at")), sum(\(unsafeRaw: column))
                FROM e GROUP BY 2
                ON CONFLICT (app_id, day) DO UPDATE
                    SET \(unsafeRaw: column) = daily_usage.\(unsafeRaw: column) + excluded.\(unsafeRaw: column)
                """)
        }
    }
}
