import Foundation
import Ledger
import PushCore

/// One line of a push's timeline (request → targeting → batches → done) from its own stream's events.
enum PushTimeline {
    static func entry(_ event: RecordedEvent) -> [String: Any] {
        let d = event.data
        let at = d["at"]?.stringValue ?? d["createdAt"]?.stringValue
        return [
            "at": Shown.time(at ?? LeanDate.format(event.recordedAt)), "type": event.type,
            "summary": summary(event.type, d), "actor": event.metadata["keyKind"]?.stringValue ?? "",
        ]
    }

    static func summary(_ type: String, _ d: JSON) -> String {
        func n(_ key: String) -> Int64 { d[key]?.intValue ?? 0 }
        switch type {
        case PushEvent.requested:
            let request = d["request"]
            let target =
                request?["device_type"]?.stringValue.map {
                    Shown.deviceList($0, request?["device_ids"]?.arrayValue?.count ?? 0)
                } ?? Shown.audience(request?["where"])
            return "status \(d["status"]?.stringValue ?? "?"); " + target
        case PushEvent.targeted:
            return "batch \(n("batch")): \(d["targets"]?.arrayValue?.count ?? 0) target(s)"
        case PushEvent.targetingCompleted:
            return "\(n("devices")) device(s) in \(n("batches")) batch(es)"
        case PushEvent.batchDelivered:
            let reasons = (d["reasons"]?.objectValue ?? [:]).sorted { $0.key < $1.key }
                .map { "\($0.key) \($0.value.intValue ?? 0)" }.joined(separator: ", ")
            return "batch \(n("batch")): \(n("successes")) success(es), \(n("errors")) error(s)"
                + (reasons.isEmpty ? "" : " (\(reasons))")
        case PushEvent.failed:
            return d["status"]?.stringValue ?? "failed"
        case PushEvent.cancelled:
            return "was \(d["previousState"]?.stringValue ?? "?"); \(n("cancelledBatches")) batch(es) not sent"
        case PushEvent.quotaReached:
            return "daily quota \(n("quota")) reached after \(n("devices")) device(s)"
        default:
            return ""
        }
    }
}
