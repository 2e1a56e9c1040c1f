import Foundation
import Postgres
import PushCore

/// The limits a push call must pass (SPEC §4.8), checked inside the call's transaction while it holds the
/// app's `limits` lock, against the usage projections; so the checks hold across server processes.
struct PushLimits {
    let app: App
    let now: Date

    enum Verdict {
        /// Allowed; so many devices may still be targeted today.
        case allowed(remainingDevices: Int64)
        /// Refused; the event that records the refusal, if it is one worth a record (a ban's start, a quota
        /// refusal — not every call refused during a ban, which would let a flood fill the log).
        case refused(LeanError, NewEvent?)
    }

    func check(on conn: PGConnection) async throws -> Verdict {
        let at = LeanDate.format(now)
        if let until = try await conn.query("SELECT banned_until FROM push_bans WHERE app_id = \(app.appId)")
            .first?.optionalDate("banned_until"), until > now
        {
            let wait = Int(until.timeIntervalSince(now).rounded(.up))
            return .refused(
                .rateLimited(
                    "Too many push calls: every push call is refused for \(wait) more seconds.",
                    retryAfter: wait), nil)
        }
        let limit = app.intSetting("push_rate_per_minute")
        let local = try await LocalTime.of(appId: app.appId, schema: "public", on: conn)
        let calls =
            try await conn.query(
                """
                SELECT calls FROM minute_calls
                WHERE app_id = \(app.appId) AND minute = \(local.minute(at))
                """
            ).first?.int64("calls") ?? 0
        if calls >= limit {
            let ban = UsageEvent.banSeconds
            let event = NewEvent(
                .rateLimited(
                    PushRateLimited(
                        at: at, bannedUntil: LeanDate.format(now.addingTimeInterval(Double(ban))), limit: limit,
                        calls: calls + 1)))
            return .refused(
                .rateLimited(
                    "Too many push calls: more than \(limit) in a minute; every push call "
                        + "is refused for \(ban) seconds.", retryAfter: ban), event)
        }
        let quota = app.intSetting("daily_push_quota")
        let used = try await Self.devicesToday(app: app, now: now, on: conn)
        if used >= quota {
            let event = NewEvent(.quotaRefused(PushQuotaRefused(at: at, quota: quota, used: used)))
            return .refused(.quotaExceeded("The daily push quota of \(quota) devices is used up for today."), event)
        }
        return .allowed(remainingDevices: quota - used)
    }

    /// Devices targeted so far on the app's current local day.
    static func devicesToday(app: App, now: Date, on conn: PGConnection) async throws -> Int64 {
        let local = try await LocalTime.of(appId: app.appId, schema: "public", on: conn)
        return try await conn.query(
            .reusingPlan(
                """
                SELECT devices FROM daily_usage
                WHERE app_id = \(app.appId) AND day = \(local.day(LeanDate.format(now)))
                """)
        ).first?.int64("devices") ?? 0
    }

    /// Appends a refusal's event to the app's `limits` stream.
    static func record(_ event: NewEvent, tx: LedgerTransaction) async throws {
        let stream = UsageEvent.limitsStream
        try await tx.append(stream: stream, expectedVersion: try await tx.currentVersion(of: stream), [event])
    }
}
