import Metrics
import PushCore

/// Series counted when events commit (through swift-metrics; `serve` picks the Prometheus backend).
enum LedgerMetrics {
    /// The push status an event type ends in or starts, for `pushledger_pushes_total{status}`.
    static let pushStatus: [String: String] = [
        PushEvent.requested: "requested", PushEvent.completed: "done", PushEvent.failed: "failed",
        PushEvent.cancelled: "cancelled", PushEvent.expired: "expired",
    ]

    static func committed(_ types: [String]) {
        guard !types.isEmpty else { return }
        var byType: [String: Int64] = [:]
        for type in types { byType[type, default: 0] += 1 }
        for (type, count) in byType {
            Counter(label: "pushledger_events_appended_total", dimensions: [("type", type)]).increment(by: count)
            if let status = pushStatus[type] {
                Counter(label: "pushledger_pushes_total", dimensions: [("status", status)]).increment(by: count)
            }
        }
    }
}
