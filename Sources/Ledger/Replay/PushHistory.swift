import Foundation
import PushCore

/// A push's stream read for `explain`: its request, the batches it was targeted in and their outcomes.
struct PushHistory: Sendable {
    let events: [TimedEvent]
    let requested: TimedEvent
    let request: PushRequest
    /// The `PushTargeted` events, in order, with their data.
    private let targeted: [(event: TimedEvent, data: PushTargeted)]
    /// The `PushBatchDelivered` events, in order, with their data.
    private let delivered: [(event: TimedEvent, data: BatchDelivered)]
    private let failed: PushFailedPayload?

    init?(_ events: [TimedEvent]) throws {
        guard let requested = events.first(where: { $0.event.type == PushEvent.requested }) else { return nil }
        self.events = events
        self.requested = requested
        self.request = try PushRequest.stored(try PushRequested(json: requested.event.data).request)
        targeted = try events.filter { $0.event.type == PushEvent.targeted }.map {
            ($0, try PushTargeted(json: $0.event.data))
        }
        delivered = try events.filter { $0.event.type == PushEvent.batchDelivered }
            .map { ($0, try BatchDelivered(json: $0.event.data)) }
        failed = try events.first { $0.event.type == PushEvent.failed }.map {
            try PushFailedPayload(json: $0.event.data)
        }
    }

    /// The `PushTargeted` batch that holds the installation (by objectId, or by token for a `/push/devices`
    /// target whose installation was unknown when it was requested).
    func batch(objectId: String, token: String?) -> (number: Int, event: TimedEvent)? {
        for (event, data) in targeted {
            let hit = data.targets.contains {
                $0.objectId == objectId || ($0.objectId.isEmpty && token != nil && $0.token == token)
            }
            if hit { return (Int(data.batch), event) }
        }
        return nil
    }

    /// When the installation was (or would have been) targeted, and which event says so.
    func instant(batch: (number: Int, event: TimedEvent)?) -> (at: Date, source: String) {
        if let batch { return (batch.event.at, "PushTargeted batch \(batch.number)") }
        if let first = targeted.first { return (first.event.at, "PushTargeted batch \(first.data.batch)") }
        for type in [PushEvent.targetingCompleted, PushEvent.expired, PushEvent.failed] {
            if let e = events.first(where: { $0.event.type == type }) { return (e.at, type) }
        }
        if let pushTime = request.pushTime { return (pushTime, "push_time (not targeted yet)") }
        return (requested.at, "PushRequested")
    }

    /// The outcome the log records for a target of `batch` known by `keys` (objectId, token).
    func outcome(batch: Int, keys: [String]) -> Explanation.Delivery {
        for (event, data) in delivered where data.batch == Int64(batch) {
            if let reason = keys.lazy.compactMap({ data.failures[$0] }).first {
                return .failed(batch: batch, reason: reason, at: event.at)
            }
            if let objectId = keys.first, viaChannel(batch: batch, objectId: objectId) {
                return channelOutcome(batch: batch, objectId: objectId)
            }
            return .delivered(batch: batch, at: event.at)
        }
        if events.contains(where: { $0.event.type == PushEvent.cancelled }) { return .cancelled(batch: batch) }
        return .pending(batch: batch)
    }

    /// Whether the installation was a target of `batch` without a vendor token: one for the own channel.
    func viaChannel(batch: Int, objectId: String) -> Bool {
        targeted.contains {
            $0.data.batch == Int64(batch) && $0.data.targets.contains { $0.objectId == objectId && $0.token.isEmpty }
        }
    }

    /// How the own channel's message for the installation ended: acked, expired or dropped, or still waiting.
    func channelOutcome(batch: Int, objectId: String) -> Explanation.Delivery {
        let types = [PushEvent.channelAcked, PushEvent.channelExpired, PushEvent.channelDropped]
        for e in events where types.contains(e.event.type) {
            guard let results = try? ChannelResults(json: e.event.data), results.installations.contains(objectId)
            else { continue }
            if let reason = ChannelResults.reason(of: e.event.type) {
                return .failed(batch: batch, reason: reason, at: e.at)
            }
            return .acknowledged(batch: batch, at: e.at)
        }
        return .waitingForDevice(batch: batch)
    }

    /// Why nothing was sent to a matching installation, when the log says.
    var notTargetedNote: String? {
        if let failed { return "the push failed: \(failed.status)" }
        if events.contains(where: { $0.event.type == PushEvent.expired }) {
            return "the push expired before it was sent"
        }
        if events.contains(where: { $0.event.type == PushEvent.quotaReached }) {
            return "the daily quota stopped targeting"
        }
        if events.contains(where: { $0.event.type == PushEvent.cancelled }) { return "the push was cancelled" }
        if !events.contains(where: { $0.event.type == PushEvent.targetingCompleted }) {
            return "targeting has not finished"
        }
        return nil
    }
}
