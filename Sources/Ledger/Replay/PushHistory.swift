import Foundation
import PushCore

/// A push's stream read for `explain`: its request, the batches it was targeted in and their outcomes.
struct PushHistory: Sendable {
    /// The stream's events, each decoded once.
    private let events: [(event: TimedEvent, kind: PushLogEvent)]
    let requested: TimedEvent
    let request: PushRequest
    /// The `PushTargeted` events, in order, with their data.
    private let targeted: [(event: TimedEvent, data: PushTargeted)]
    /// The `PushBatchDelivered` events, in order, with their data.
    private let delivered: [(event: TimedEvent, data: BatchDelivered)]
    private let failed: PushFailedPayload?

    init?(_ stream: [TimedEvent]) throws {
        events = try stream.compactMap { e in
            try PushLogEvent(type: e.event.type, json: e.event.data).map { (e, $0) }
        }
        var requested: (TimedEvent, PushRequested)?
        var targeted: [(event: TimedEvent, data: PushTargeted)] = []
        var delivered: [(event: TimedEvent, data: BatchDelivered)] = []
        var failed: PushFailedPayload?
        for (event, kind) in events {
            switch kind {
            case .requested(let r): requested = requested ?? (event, r)
            case .targeted(let page): targeted.append((event, page))
            case .batchDelivered(let b): delivered.append((event, b))
            case .failed(let f): failed = failed ?? f
            default: break
            }
        }
        guard let requested else { return nil }
        self.requested = requested.0
        self.request = try PushRequest.stored(requested.1.request)
        self.targeted = targeted
        self.delivered = delivered
        self.failed = failed
    }

    /// The first event of the kind `matches` picks.
    private func first(_ matches: (PushLogEvent) -> Bool) -> TimedEvent? {
        events.first { matches($0.kind) }?.event
    }

    private func contains(_ matches: (PushLogEvent) -> Bool) -> Bool { first(matches) != nil }

    /// The `PushTargeted` batch that holds the installation (by objectId, or by token for a `/push/devices`
    /// target whose installation was unknown when it was requested), with its target.
    func batch(objectId: String, token: String?) -> (number: Int, event: TimedEvent, target: PushTarget)? {
        for (event, data) in targeted {
            let target = data.targets.first {
                $0.objectId == objectId || ($0.objectId.isEmpty && token != nil && $0.token == token)
            }
            if let target { return (Int(data.batch), event, target) }
        }
        return nil
    }

    /// When the installation was (or would have been) targeted, and which event says so.
    func instant(batch: (number: Int, event: TimedEvent)?) -> (at: Date, source: String) {
        if let batch { return (batch.event.at, "PushTargeted batch \(batch.number)") }
        if let first = targeted.first { return (first.event.at, "PushTargeted batch \(first.data.batch)") }
        for type in [PushEvent.targetingCompleted, PushEvent.expired, PushEvent.failed] {
            if let e = first({ $0.type == type }) { return (e.at, type) }
        }
        if let pushTime = request.pushTime { return (pushTime, "push_time (not targeted yet)") }
        return (requested.at, "PushRequested")
    }

    /// The outcome the log records for `target` of `batch`, known by `keys` (objectId, tokens). A batch's
    /// outcomes are recorded in parts while it is sent (migration 0019), each part naming only its failures, so
    /// every part is read: a target is failed where a part says so, and delivered once the parts account for
    /// every target of the batch (at the last part's time, the latest it can have been accepted).
    func outcome(batch: Int, target: PushTarget, keys: [String]) -> Explanation.Delivery {
        var parts = delivered.filter { $0.data.batch == Int64(batch) }
        // Targets a sender handed back while shutting down went out again in batches of their own, which no
        // `PushTargeted` names: those batches' outcomes are read as this batch's (with several batches handed
        // back at once, their outcomes cannot be told apart by batch, only by the failures they name).
        if parts.contains(where: { ($0.data.handedBack ?? 0) > 0 }) {
            let targetedNumbers = Set(targeted.map(\.data.batch))
            parts += delivered.filter { !targetedNumbers.contains($0.data.batch) }
            parts.sort { $0.event.at < $1.event.at }
        }
        for (event, data) in parts {
            if let reason = keys.lazy.compactMap({ data.failures[$0] }).first {
                return .failed(batch: batch, reason: reason, at: event.at)
            }
        }
        if case .channel = DeliveryRoute(target), parts.contains(where: { ($0.data.queued ?? 0) > 0 }) {
            return channelOutcome(batch: batch, objectId: target.objectId)
        }
        let size = targeted.first { $0.data.batch == Int64(batch) }?.data.targets.count ?? 0
        let accounted = parts.reduce(Int64(0)) { $0 + $1.data.successes + $1.data.errors + ($1.data.queued ?? 0) }
        if let last = parts.last, accounted >= Int64(size) { return .delivered(batch: batch, at: last.event.at) }
        if contains({ if case .cancelled = $0 { true } else { false } }) { return .cancelled(batch: batch) }
        return .pending(batch: batch)
    }

    /// How the own channel's message for the installation ended: acked, expired or dropped, or still waiting.
    func channelOutcome(batch: Int, objectId: String) -> Explanation.Delivery {
        for (event, kind) in events {
            guard let ending = kind.channelEnding, ending.results.installations.contains(objectId) else { continue }
            if let reason = ending.errorReason { return .failed(batch: batch, reason: reason, at: event.at) }
            return .acknowledged(batch: batch, at: event.at)
        }
        return .waitingForDevice(batch: batch)
    }

    /// Why nothing was sent to a matching installation, when the log says.
    var notTargetedNote: String? {
        if let failed { return "the push failed: \(failed.status)" }
        var expired = false, quotaReached = false, cancelled = false, targetingCompleted = false
        for (_, kind) in events {
            switch kind {
            case .expired: expired = true
            case .quotaReached: quotaReached = true
            case .cancelled: cancelled = true
            case .targetingCompleted: targetingCompleted = true
            default: break
            }
        }
        if expired { return "the push expired before it was sent" }
        if quotaReached { return "the daily quota stopped targeting" }
        if cancelled { return "the push was cancelled" }
        if !targetingCompleted { return "targeting has not finished" }
        return nil
    }
}
