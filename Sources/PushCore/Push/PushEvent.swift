/// Event types of a push stream (`push:<objectId>`) and their statuses (SPEC §4.5).
public enum PushEvent {
    public static let requested = "PushRequested"
    public static let targeted = "PushTargeted"
    public static let targetingCompleted = "PushTargetingCompleted"
    public static let batchDelivered = "PushBatchDelivered"
    public static let completed = "PushCompleted"
    public static let failed = "PushFailed"
    public static let expired = "PushExpired"
    public static let cancelled = "PushCancelled"
    public static let deleted = "NotificationDeleted"
    /// The daily quota was reached while targeting: no more targets; what was targeted is still sent.
    public static let quotaReached = "PushQuotaReached"
    /// The retention job removed the push record (7 days old); the log and report aggregates keep it.
    public static let purged = "NotificationPurged"
    /// Own-channel results (SPEC §12.2), each a `ChannelResults` for messages of one push that ended in one
    /// recording transaction: acknowledged by the device (successes), expired before the device took them,
    /// or dropped over the device's pending cap (both errors, reasons `Expired` and `Dropped`).
    public static let channelAcked = "PushChannelAcked"
    public static let channelExpired = "PushChannelExpired"
    public static let channelDropped = "PushChannelDropped"

    public static let all: Set<String> = [
        requested, targeted, targetingCompleted, batchDelivered, completed, failed, expired, cancelled, deleted,
        quotaReached, purged, channelAcked, channelExpired, channelDropped,
    ]

    public static func stream(_ pushId: String) -> String { streamPrefix + pushId }
    public static func isPushStream(_ stream: String) -> Bool { stream.hasPrefix(streamPrefix) }
    static let streamPrefix = "push:"

    public enum Status {
        public static let scheduled = "scheduled"
        public static let inQueue = "in-queue"
        public static let done = "done"
        public static let cancelled = "cancelled"
        public static let devLimit = "dev profile disabled for massive push"
        public static func quotaReached(_ quota: Int64) -> String {
            "stopped: daily push quota of \(quota) devices reached"
        }
    }

    /// Above this many targets a `prod: dev` push is refused (SPEC §4.3).
    public static let devProfileLimit = 20_000
    /// Targets per batch (a keyset page holds `PushTargeting.batchesPerPage` of them). 1,000 rather than 500:
    /// half the page and record transactions, each holding the push stream's lock through its commit, and so
    /// less PostgreSQL work per device (docs/decisions.md, "Batches of 1,000 targets").
    public static let batchSize = 1000
}
