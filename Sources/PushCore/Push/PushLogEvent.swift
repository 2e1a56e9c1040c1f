/// A push stream's event: its kind and the payload of that kind. The stored type string is derived from the
/// case, so an event cannot be written under another kind's name with the wrong data.
public enum PushLogEvent: Sendable, Equatable {
    case requested(PushRequested)
    case targeted(PushTargeted)
    case targetingCompleted(PushTargetingCompleted)
    case batchDelivered(BatchDelivered)
    case completed(PushMilestone)
    case failed(PushFailedPayload)
    case expired(PushMilestone)
    case cancelled(PushCancelled)
    case deleted(PushMilestone)
    case quotaReached(PushQuotaReached)
    case purged(PushMilestone)
    case channelAcked(ChannelResults)
    case channelExpired(ChannelResults)
    case channelDropped(ChannelResults)

    /// The type the log stores it under (`PushEvent`'s names, SPEC §4.5).
    public var type: String {
        switch self {
        case .requested: PushEvent.requested
        case .targeted: PushEvent.targeted
        case .targetingCompleted: PushEvent.targetingCompleted
        case .batchDelivered: PushEvent.batchDelivered
        case .completed: PushEvent.completed
        case .failed: PushEvent.failed
        case .expired: PushEvent.expired
        case .cancelled: PushEvent.cancelled
        case .deleted: PushEvent.deleted
        case .quotaReached: PushEvent.quotaReached
        case .purged: PushEvent.purged
        case .channelAcked: PushEvent.channelAcked
        case .channelExpired: PushEvent.channelExpired
        case .channelDropped: PushEvent.channelDropped
        }
    }

    /// The payload, whose `json` is the stored data.
    public var payload: any PushEventPayload {
        switch self {
        case .requested(let p): p
        case .targeted(let p): p
        case .targetingCompleted(let p): p
        case .batchDelivered(let p): p
        case .completed(let p), .expired(let p), .deleted(let p), .purged(let p): p
        case .failed(let p): p
        case .cancelled(let p): p
        case .quotaReached(let p): p
        case .channelAcked(let p), .channelExpired(let p), .channelDropped(let p): p
        }
    }

    /// An own-channel ending (acks, expiries, drops): its results and the error reason it counts under (nil
    /// for acks, which are successes).
    public var channelEnding: (results: ChannelResults, errorReason: String?)? {
        switch self {
        case .channelAcked(let r): (r, nil)
        case .channelExpired(let r): (r, "Expired")
        case .channelDropped(let r): (r, "Dropped")
        default: nil
        }
    }

    /// Reads a stored event of a push stream; nil for a type that is not a push event. A page of targets is
    /// read whole, or only counted (`TargetReading`).
    public init?(type: String, json: JSON, targets: TargetReading = .whole) throws {
        switch type {
        case PushEvent.requested: self = .requested(try PushRequested(json: json))
        case PushEvent.targeted:
            self = .targeted(targets == .whole ? try PushTargeted(json: json) : try PushTargeted(counting: json))
        case PushEvent.targetingCompleted: self = .targetingCompleted(try PushTargetingCompleted(json: json))
        case PushEvent.batchDelivered: self = .batchDelivered(try BatchDelivered(json: json))
        case PushEvent.completed: self = .completed(try PushMilestone(json: json))
        case PushEvent.failed: self = .failed(try PushFailedPayload(json: json))
        case PushEvent.expired: self = .expired(try PushMilestone(json: json))
        case PushEvent.cancelled: self = .cancelled(try PushCancelled(json: json))
        case PushEvent.deleted: self = .deleted(try PushMilestone(json: json))
        case PushEvent.quotaReached: self = .quotaReached(try PushQuotaReached(json: json))
        case PushEvent.purged: self = .purged(try PushMilestone(json: json))
        case PushEvent.channelAcked: self = .channelAcked(try ChannelResults(json: json))
        case PushEvent.channelExpired: self = .channelExpired(try ChannelResults(json: json))
        case PushEvent.channelDropped: self = .channelDropped(try ChannelResults(json: json))
        default: return nil
        }
    }
}

/// How a reader reads a page of targets (`PushTargeted`), the log's largest event: whole, or only their number,
/// which is all any projection needs (a rebuild's log scan does not even fetch the targets).
public enum TargetReading: Sendable {
    case whole
    case counted
}
