import Foundation
import PushCore

/// A push's stream read for `explain`: its request, the batches it was targeted in and their outcomes.
struct PushHistory: Sendable {
    let events: [TimedEvent]
    let requested: TimedEvent
    let request: PushRequest

    init?(_ events: [TimedEvent]) throws {
        guard let requested = events.first(where: { $0.event.type == PushEvent.requested }) else { return nil }
        self.events = events
        self.requested = requested
        self.request = try PushRequest.stored(requested.event.data["request"] ?? [:])
    }

    private var targeted: [TimedEvent] { events.filter { $0.event.type == PushEvent.targeted } }

    /// The `PushTargeted` batch that holds the installation (by objectId, or by token for a `/push/devices`
    /// target whose installation was unknown when it was requested).
    func batch(objectId: String, token: String?) -> (number: Int, event: TimedEvent)? {
        for e in targeted {
            let targets = (e.event.data["targets"]?.arrayValue ?? []).compactMap(PushTarget.init(json:))
            let hit = targets.contains { $0.objectId == objectId || ($0.objectId.isEmpty && token != nil && $0.token == token) }
            if hit { return (Int(e.event.data["batch"]?.intValue ?? 0), e) }
        }
        return nil
    }

    /// When the installation was (or would have been) targeted, and which event says so.
    func instant(batch: (number: Int, event: TimedEvent)?) -> (at: Date, source: String) {
        if let batch { return (batch.event.at, "PushTargeted batch \(batch.number)") }
        if let first = targeted.first { return (first.at, "PushTargeted batch \(first.event.data["batch"]?.intValue ?? 0)") }
        for type in [PushEvent.targetingCompleted, PushEvent.expired, PushEvent.failed] {
            if let e = events.first(where: { $0.event.type == type }) { return (e.at, type) }
        }
        if let pushTime = request.pushTime { return (pushTime, "push_time (not targeted yet)") }
        return (requested.at, "PushRequested")
    }

    /// The outcome the log records for a target of `batch` known by `keys` (objectId, token).
    func outcome(batch: Int, keys: [String]) -> Explanation.Delivery {
        for e in events where e.event.type == PushEvent.batchDelivered && e.event.data["batch"]?.intValue == Int64(batch) {
            let failures = e.event.data["failures"]?.objectValue ?? [:]
            if let reason = keys.lazy.compactMap({ failures[$0]?.stringValue }).first {
                return .failed(batch: batch, reason: reason, at: e.at)
            }
            return .delivered(batch: batch, at: e.at)
        }
        if events.contains(where: { $0.event.type == PushEvent.cancelled }) { return .cancelled(batch: batch) }
        return .pending(batch: batch)
    }

    /// Why nothing was sent to a matching installation, when the log says.
    var notTargetedNote: String? {
        if let failed = events.first(where: { $0.event.type == PushEvent.failed }) {
            return "the push failed: \(failed.event.data["status"]?.stringValue ?? "")"
        }
        if events.contains(where: { $0.event.type == PushEvent.expired }) { return "the push expired before it was sent" }
        if events.contains(where: { $0.event.type == PushEvent.quotaReached }) { return "the daily quota stopped targeting" }
        if events.contains(where: { $0.event.type == PushEvent.cancelled }) { return "the push was cancelled" }
        if !events.contains(where: { $0.event.type == PushEvent.targetingCompleted }) { return "targeting has not finished" }
        return nil
    }
}
