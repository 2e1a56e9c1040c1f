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

    public static let all: Set<String> = [
        requested, targeted, targetingCompleted, batchDelivered, completed, failed, expired, cancelled, deleted,
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
    }

    /// Above this many targets a `prod: dev` push is refused (SPEC §4.3).
    public static let devProfileLimit = 20_000
    public static let batchSize = 500
}
