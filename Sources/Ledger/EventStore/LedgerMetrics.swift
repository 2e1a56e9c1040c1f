import Metrics
import PushCore

/// Series counted when events commit (through swift-metrics; `serve` picks the Prometheus backend).
enum LedgerMetrics {
    /// The push status an event ends in or starts, for `pushledger_pushes_total{status}`.
    static func pushStatus(_ event: LedgerEvent) -> String? {
        guard case .push(let push) = event else { return nil }
        switch push {
        case .requested: return "requested"
        case .completed: return "done"
        case .failed: return "failed"
        case .cancelled: return "cancelled"
        case .expired: return "expired"
        default: return nil
        }
    }

    static func committed(_ events: [LedgerEvent]) {
        guard !events.isEmpty else { return }
        var byType: [String: Int64] = [:]
        var byStatus: [String: Int64] = [:]
        for event in events {
            byType[event.type, default: 0] += 1
            if let status = pushStatus(event) { byStatus[status, default: 0] += 1 }
        }
        for (type, count) in byType {
            Counter(label: "pushledger_events_appended_total", dimensions: [("type", type)]).increment(by: count)
        }
        for (status, count) in byStatus {
            Counter(label: "pushledger_pushes_total", dimensions: [("status", status)]).increment(by: count)
        }
    }
}
