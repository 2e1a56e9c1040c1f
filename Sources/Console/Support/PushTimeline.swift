import Foundation
import Ledger
import PushCore

/// One line of a push's timeline (request → targeting → batches → done) from its own stream's events.
enum PushTimeline {
    static func entry(_ event: RecordedEvent) -> [String: Any] {
        // A page's targets are only counted here.
        let push: PushLogEvent? =
            if case .push(let push) = try? event.decoded(targets: .counted) { push } else { nil }
        return [
            "at": Shown.time(push?.payload.at ?? LeanDate.format(event.recordedAt)), "type": event.type,
            "summary": push.map(summary) ?? "", "actor": event.metadata["keyKind"]?.stringValue ?? "",
        ]
    }

    static func summary(_ event: PushLogEvent) -> String {
        switch event {
        case .requested(let requested):
            let request = requested.request
            let target =
                request["device_type"]?.stringValue.map {
                    Shown.deviceList($0, request["device_ids"]?.arrayValue?.count ?? 0)
                } ?? Shown.audience(request["where"])
            return "status \(requested.status); " + target
        case .targeted(let page):
            return "batch \(page.batch): \(page.devices) target(s)"
        case .targetingCompleted(let completed):
            return "\(completed.devices) device(s) in \(completed.batches) batch(es)"
        case .batchDelivered(let b):
            let reasons = b.reasons.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
                .joined(separator: ", ")
            return "batch \(b.batch): \(b.successes) success(es), \(b.errors) error(s)"
                + (reasons.isEmpty ? "" : " (\(reasons))")
        case .failed(let failed):
            return failed.status
        case .cancelled(let cancelled):
            return "was \(cancelled.previousState ?? "?"); \(cancelled.cancelledBatches ?? 0) batch(es) not sent"
        case .quotaReached(let reached):
            return "daily quota \(reached.quota) reached after \(reached.devices) device(s)"
        default:
            return ""
        }
    }
}
