/// Event types of an app's limits and usage (SPEC §4.8). Refusals and bans are events so that the audit
/// shows them and the ban holds across server processes; a closed day is an event so billing can tell a
/// final figure from a running one.
public enum UsageEvent {
    /// A push call beyond `push_rate_per_minute`: `{"at","bannedUntil","limit","calls"}`.
    public static let rateLimited = "PushRateLimited"
    /// A push call refused because the day's `daily_push_quota` is used up: `{"at","quota","used"}`.
    public static let quotaRefused = "PushQuotaRefused"
    /// The retention job closed a finished day: `{"at","day","calls","peakCallsPerMinute","devices","successes"}`.
    public static let dayClosed = "UsageDayClosed"

    public static let all: Set<String> = [rateLimited, quotaRefused, dayClosed]

    /// The stream of an app's limit decisions; push calls lock it, so limit checks hold across processes.
    public static let limitsStream = "limits"
    /// One stream per closed day (`usage:2026-11-22`): closing twice is a version conflict, not a double count.
    public static func dayStream(_ day: String) -> String { "usage:\(day)" }

    /// The ban that follows a push call beyond the rate, in seconds.
    public static let banSeconds = 60
}
