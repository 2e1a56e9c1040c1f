import Foundation
import Postgres
import PushCore

/// A batch a delivery worker has leased.
public struct BatchClaim: Sendable {
    public let appId: String
    public let pushId: String
    public let batchNo: Int
    /// The worker holding the lease.
    public let owner: String
    public let targets: [PushTarget]
    /// The stored request, or why it no longer reads (then nothing is sent and the push fails with it).
    public let request: Result<PushRequest, LeanError>
    /// How many times this batch has been leased, this lease included.
    public let attempts: Int
    /// The targets whose outcomes earlier leases recorded: not to be sent again.
    public let recorded: RecordedTargets

    public init(
        appId: String, pushId: String, batchNo: Int, owner: String, targets: [PushTarget],
        request: Result<PushRequest, LeanError>, attempts: Int, recorded: RecordedTargets? = nil
    ) {
        self.appId = appId
        self.pushId = pushId
        self.batchNo = batchNo
        self.owner = owner
        self.targets = targets
        self.request = request
        self.attempts = attempts
        self.recorded = recorded ?? RecordedTargets(none: targets.count)
    }
}

/// Fan-out work waiting, as `/metrics` shows it.
public struct FanOutBacklog: Sendable, Equatable {
    /// Pushes due for targeting (their time has come).
    public let dueJobs: Int
    /// How long the oldest due push has waited, in seconds (0 when none is due).
    public let oldestDueSeconds: Double
    /// Scheduled pushes whose time has not come.
    public let scheduledJobs: Int
    /// Batches waiting for (or leased to) a sender.
    public let pendingBatches: Int
}

/// What happened to one target.
public enum TargetOutcome: Sendable, Hashable {
    case delivered
    /// The provider rejected the token for good: the installation is invalidated (removed).
    case invalidToken(reason: String, since: Date)
    /// An Android vendor declared the token invalid: the installation is set `valid: false`, its token kept
    /// (SPEC §12.3: clearing it would re-route the device), until the device saves a new one.
    case disabled(reason: String)
    /// Counted as an error with its reason.
    case failed(reason: String)
    /// Handed to the own device channel: stored with the batch's record, counted when the device acks it
    /// (or as an error when it expires or is dropped first).
    case queued(QueuedMessage)
    /// Never handed to a provider (the push was cancelled or failed, or the process is shutting down).
    case notSent
}

/// Leases batches to delivery workers and records their outcomes exactly once (SPEC §5, issue 3 point 3).
/// A lease that expires (the worker died) makes the batch claimable again; only the first outcome recorded
/// for a batch counts, so duplicates are limited to batches in flight and counters stay exact.
public struct PushBatches: Sendable {
    let store: EventStore
    /// Parts waiting to be recorded, gathered per push (see `recordPart`).
    private let parts: GroupCommitQueue<PartRecord, RecordedPart?>

    public init(store: EventStore) {
        self.store = store
        let recording = PartRecording(store: store)
        parts = GroupCommitQueue(
            maxBatch: PartRecording.maxParts, maxRunning: 16, oneBatchPerGroup: true, group: \.group,
            claims: { _ in [] }
        ) { parts in
            await recording.run(parts)
        }
    }

    /// Leases the oldest pending batch of a push that is still being sent: of the app whose oldest such batch is
    /// the oldest, or, when another sender took that one meanwhile, of the next app.
    public func claim(owner: String, lease: Duration = .seconds(30), now: Date? = nil) async throws -> BatchClaim? {
        let now = now ?? store.clock.now()
        for appId in try await PushLifecycleInterpreter.claimableApps(now: now, limit: 8, on: store.pool) {
            if let claim = try await PushLifecycleInterpreter.claim(
                appId: appId, owner: owner, until: now.adding(lease), now: now, on: store.pool)
            {
                return claim
            }
        }
        return nil
    }

    /// How much fan-out work waits (gauges for operators).
    public func backlog(now: Date? = nil) async throws -> FanOutBacklog {
        try await PushLifecycleInterpreter.backlog(now: now ?? store.clock.now(), on: store.pool)
    }

    /// The state of a push's job, read by senders to stop dispatching when it is cancelled or has failed.
    public func jobState(appId: String, pushId: String) async throws -> JobState? {
        try await PushLifecycleInterpreter.state(appId: appId, pushId: pushId, on: store.pool)
    }

    /// `flow_control` (SPEC §4.1): reserves `count` devices of the push's per-second budget, shared by every
    /// process sending the push. Returns when the reserved slot starts (now or later): the caller waits until
    /// then.
    public func reserveFlow(appId: String, pushId: String, count: Int, rate: Int) async throws -> Date {
        let now = store.clock.now()
        return try await PushLifecycleInterpreter.reserveFlow(
            appId: appId, pushId: pushId, count: count, rate: rate, now: now, on: store.pool) ?? now
    }

    /// Extends the lease of a batch its owner is still sending, so that a slow send (a provider timing out,
    /// an overloaded machine) is not mistaken for a dead sender and re-sent whole by another worker. Returns
    /// false when the batch was recorded or cancelled meanwhile, or another worker took it over.
    public func renew(_ claim: BatchClaim, lease: Duration = .seconds(30), now: Date? = nil) async throws -> Bool {
        try await PushLifecycleInterpreter.renew(claim, until: (now ?? store.clock.now()).adding(lease), on: store.pool)
    }

    /// Records the outcomes of every target of a batch at once.
    @discardableResult
    public func record(
        _ claim: BatchClaim, outcomes: [TargetOutcome], pushFailure: String? = nil, now: Date? = nil,
        channelCap: Int64 = ChannelLedger.defaultCap
    )
        async throws -> BatchDelivered?
    {
        precondition(outcomes.count == claim.targets.count)
        return try await recordPart(
            claim, zip(claim.targets.indices, outcomes).map { ($0, $1) }, pushFailure: pushFailure, now: now,
            channelCap: channelCap)?.delivered
    }

    /// What a part's record came to: its event's data, and which of the part's targets it covers (those no
    /// earlier record of the batch had).
    public struct RecordedPart: Sendable {
        public let delivered: BatchDelivered
        public let indices: [Int]
    }

    /// Records the outcomes of some of a batch's targets (`part`: target index and outcome): one
    /// `PushBatchDelivered` for them, an `InstallationInvalidated` per dead token, and, once every target of
    /// the batch is recorded, `PushCompleted` when it was the push's last batch. Only the first recording of
    /// each target counts: targets recorded already (by a sender whose lease lapsed, say) are left out, and
    /// nil is answered when none is left or the batch is no longer pending. Targets that were not sent go back
    /// to the queue as a new batch while the push is live (a sender shutting down hands them back), and count
    /// as errors with the reason `Cancelled`/`PushFailed` when it is not. `pushFailure` ends the whole push:
    /// `PushFailed` with that reason, and its batches no sender holds are cancelled. Channel messages go in
    /// with the record (durable before any socket sees them); a device then holding more than `channelCap`
    /// loses its oldest ones.
    ///
    /// Parts of one push that arrive while another record of it commits wait and then go in together, in one
    /// transaction (`PartRecording`): every record of a push holds its stream's lock until it commits, so
    /// they would only queue there, one transaction each.
    @discardableResult
    public func recordPart(
        _ claim: BatchClaim, _ part: [(index: Int, outcome: TargetOutcome)], pushFailure: String? = nil,
        now: Date? = nil, channelCap: Int64 = ChannelLedger.defaultCap
    )
        async throws -> RecordedPart?
    {
        try await parts.submit(
            PartRecord(claim: claim, part: part, pushFailure: pushFailure, now: now, channelCap: channelCap))
    }
}
