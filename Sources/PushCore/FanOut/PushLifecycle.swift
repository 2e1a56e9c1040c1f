import Foundation

/// A push's job as the fan-out's work table holds it (`push_jobs`), read in the transaction that asks
/// `PushLifecycle` what to do.
public struct PushJob: Sendable, Equatable {
    public var state: JobState
    /// Batches numbered so far: the next batch's number.
    public var batches: Int
    /// Devices targeted so far.
    public var targeted: Int64
    /// Targeting attempts that failed.
    public var attempts: Int
    /// The last installation targeted (keyset pagination).
    public var cursor: String?
    /// `send_at` has come. Judged by the database, where both instants have the same microsecond precision.
    public var due: Bool
    /// Its expiration has passed (judged like `due`).
    public var expired: Bool

    public init(
        state: JobState, batches: Int = 0, targeted: Int64 = 0, attempts: Int = 0, cursor: String? = nil,
        due: Bool = true, expired: Bool = false
    ) {
        self.state = state
        self.batches = batches
        self.targeted = targeted
        self.attempts = attempts
        self.cursor = cursor
        self.due = due
        self.expired = expired
    }
}

/// What happens to a push, decided in one place: each input (accepted, a page targeted, a batch recorded,
/// targeting failed, cancel, expiry, purge, own-channel results) returns the actions that carry it out —
/// the events to append (typed), the job and batch rows to write — and the interpreter in the ledger applies
/// them in the transaction that holds the push stream's lock. Pure, in the shape of postgres-nio's
/// `ConnectionStateMachine`: where a decision needs one more fact from the database, an action asks for it
/// (`countPendingBatches`, `endJob`) and the answer is the next input. So whole push histories are played and
/// checked without a database, and the status a record shows follows from the events alone.
public struct PushLifecycle: Sendable {
    public let pushId: String
    /// The instant the inputs are judged at and the events stamped with.
    public let at: Date
    /// The job; nil when the push has none (not accepted yet, or purged).
    public private(set) var job: PushJob?
    private var awaiting: Awaiting?

    public init(pushId: String, job: PushJob?, at: Date) {
        self.pushId = pushId
        self.job = job
        self.at = at
    }

    /// An answer the machine waits for before it can finish what an input started.
    private enum Awaiting: Sendable {
        /// The last page added no batch: done or sending depends on batches still pending.
        case lastPage(events: [PushLogEvent], stoppedAtQuota: Int64?)
        /// A batch's last target was recorded: the push is done when no other batch is pending.
        case lastTargetOfBatch(events: [PushLogEvent])
        /// The job was cancelled from `previous`; the event says how many batches no sender held.
        case cancelled(previous: JobState, delete: Bool)
    }

    public enum Action: Sendable, Equatable {
        /// Append these events to the push's stream, in order.
        case append([PushLogEvent])
        /// Insert the push's job row.
        case insertJob(PushJob, request: JSON, sendAt: Date, expiresAt: Date?)
        /// Write the job's state, cursor and counts.
        case updateJob(PushJob)
        /// Targeting is tried again at `until`.
        case postpone(attempts: Int, reason: String, until: Date)
        /// End the job (cancelled or failed) and cancel the batches no sender holds; answered with
        /// `jobEnded(cancelledBatches:)`.
        case endJob(JobState, reason: String?, countsAttempt: Bool)
        /// Insert batch `number` with these targets.
        case insertBatch(number: Int, targets: [PushTarget])
        /// Insert batches `numbers`, each with the targets of its `PushTargeted` event: the first events of the
        /// `append` just before, in that order.
        case insertTargetedBatches(Range<Int>)
        /// Count the push's batches still pending; answered with `pendingBatchesCounted(_:)`.
        case countPendingBatches
        /// Remove the push's job and batches.
        case removeWork
        /// Do nothing and tell the caller why.
        case refuse(LeanError)
    }

    private var stamp: String { LeanDate.format(at) }

    // MARK: The rules

    /// A push to a device list whose expiration came before it was accepted is recorded as expired and sent to
    /// nobody (SPEC §4.7).
    public static func expiredOnArrival(expiration: Date?, at: Date) -> Bool {
        expiration.map { $0 <= at } ?? false
    }

    /// Statuses a push record has while work remains; `PushCompleted` turns only these into `done`, so a push
    /// stopped at the daily quota keeps saying so once its last batch is sent.
    public static let openStatuses = [PushEvent.Status.scheduled, PushEvent.Status.inQueue]

    /// The job's state allows targeting and its time has come.
    public var isDueForTargeting: Bool {
        guard let job else { return false }
        return JobState.due.contains(job.state) && job.due
    }

    /// Targeting must count the audience before its first page: above `PushEvent.devProfileLimit` devices a
    /// `prod: dev` push is refused (SPEC §4.3).
    public func needsDevAudienceCount(prod: String?) -> Bool {
        prod == "dev" && job?.cursor == nil
    }

    /// Outcomes recorded now still count for a live push: targets not sent go back to the queue, own-channel
    /// messages are queued. False once the push ended, or when `pushFailure` ends it.
    public func acceptsOutcomes(pushFailure: String?) -> Bool {
        pushFailure == nil && !(job?.state ?? .done).isTerminal
    }

    /// The error a target that was never sent counts as once the push no longer accepts outcomes.
    public var unsentReason: String { job?.state == .cancelled ? "Cancelled" : "PushFailed" }

    // MARK: Inputs

    /// What a request brings when it is accepted.
    public struct Acceptance: Sendable {
        public var request: JSON
        public var scheduled: Bool
        public var sendAt: Date
        public var expiresAt: Date?
        /// A device list's targets (nil for a query audience).
        public var listed: Listed?

        public init(request: JSON, scheduled: Bool, sendAt: Date, expiresAt: Date?, listed: Listed?) {
            self.request = request
            self.scheduled = scheduled
            self.sendAt = sendAt
            self.expiresAt = expiresAt
            self.listed = listed
        }
    }

    public enum Listed: Sendable, Equatable {
        /// Expired on arrival (`expiredOnArrival`): nothing is looked up.
        case expired
        /// The list's targets, `remaining` devices of the app's daily `quota` left.
        case targets([PushTarget], remaining: Int64, quota: Int64)
    }

    public mutating func accept(_ acceptance: Acceptance) -> [Action] {
        let status = acceptance.scheduled ? PushEvent.Status.scheduled : PushEvent.Status.inQueue
        var events: [PushLogEvent] = [
            .requested(PushRequested(objectId: pushId, request: acceptance.request, at: stamp, status: status))
        ]
        var listedTargets: [PushTarget]?
        switch acceptance.listed {
        case nil:
            break
        case .expired:
            events.append(.expired(milestone))
        case .targets(let all, let remaining, let quota):
            // A list that crosses the daily quota is sent to as many as it allows, and the record says so.
            let stopped = all.count > remaining
            let targets = stopped ? Array(all.prefix(Int(max(0, remaining)))) : all
            events.append(.targeted(PushTargeted(objectId: pushId, batch: 0, targets: targets, at: stamp)))
            events.append(
                .targetingCompleted(
                    PushTargetingCompleted(objectId: pushId, devices: Int64(targets.count), batches: 1, at: stamp)))
            if stopped {
                events.append(
                    .quotaReached(
                        PushQuotaReached(objectId: pushId, at: stamp, quota: quota, devices: Int64(targets.count))))
            }
            if targets.isEmpty { events.append(.completed(milestone)) }
            listedTargets = targets
        }
        let state = JobState.initial(
            scheduled: acceptance.scheduled, deviceTargets: listedTargets?.count, listed: acceptance.listed != nil)
        let job = PushJob(state: state, batches: state == .sending ? 1 : 0, due: !acceptance.scheduled)
        self.job = job
        var actions: [Action] = [
            .append(events),
            .insertJob(job, request: acceptance.request, sendAt: acceptance.sendAt, expiresAt: acceptance.expiresAt),
        ]
        if let listedTargets, state == .sending { actions.append(.insertBatch(number: 0, targets: listedTargets)) }
        return actions
    }

    /// A due push's expiration passed before it was targeted: it ends `done` with `PushExpired`.
    public var hasExpired: Bool {
        guard let job else { return false }
        return job.expired && job.state.after(.expired) != nil
    }

    public mutating func expire() -> [Action] {
        guard hasExpired, var job, let next = job.state.after(.expired) else { return [] }
        job.state = next
        self.job = job
        return [.updateJob(job), .append([.expired(milestone)])]
    }

    /// One targeting page: its targets cut into `batches`; `cursor` the last installation read; `morePages`
    /// while the audience is not exhausted; `stoppedAtQuota` the daily quota, when it ended targeting early.
    public struct Page: Sendable {
        public var batches: [[PushTarget]]
        public var cursor: String?
        public var morePages: Bool
        public var stoppedAtQuota: Int64?

        public init(batches: [[PushTarget]], cursor: String?, morePages: Bool, stoppedAtQuota: Int64?) {
            self.batches = batches
            self.cursor = cursor
            self.morePages = morePages
            self.stoppedAtQuota = stoppedAtQuota
        }
    }

    public mutating func pageTargeted(_ page: Page) -> [Action] {
        guard var job, isDueForTargeting else { return [] }
        let first = job.batches
        var events: [PushLogEvent] = []
        for (offset, targets) in page.batches.enumerated() {
            events.append(
                .targeted(PushTargeted(objectId: pushId, batch: Int64(first + offset), targets: targets, at: stamp)))
        }
        job.cursor = page.cursor ?? job.cursor
        job.batches += page.batches.count
        job.targeted += Int64(page.batches.reduce(0) { $0 + $1.count })
        self.job = job
        let batches: [Action] = page.batches.isEmpty ? [] : [.insertTargetedBatches(first..<job.batches)]
        if !page.morePages && page.batches.isEmpty {
            // Done or sending depends on whether earlier pages' batches are still pending.
            awaiting = .lastPage(events: events, stoppedAtQuota: page.stoppedAtQuota)
            return [.countPendingBatches]
        }
        return finishPage(events: events, morePages: page.morePages, batchesPending: true, page.stoppedAtQuota)
            + batches
    }

    private mutating func finishPage(
        events: [PushLogEvent], morePages: Bool, batchesPending: Bool, _ stoppedAtQuota: Int64?
    ) -> [Action] {
        guard var job, let next = job.state.after(.pageTargeted(morePages: morePages, batchesPending: batchesPending))
        else { return [] }
        job.state = next
        self.job = job
        var events = events
        if !morePages {
            events.append(
                .targetingCompleted(
                    PushTargetingCompleted(
                        objectId: pushId, devices: job.targeted, batches: Int64(job.batches), at: stamp)))
            if let quota = stoppedAtQuota {
                events.append(
                    .quotaReached(PushQuotaReached(objectId: pushId, at: stamp, quota: quota, devices: job.targeted)))
            }
            if next == .done { events.append(.completed(milestone)) }
        }
        return [.updateJob(job), .append(events)]
    }

    /// The audience of a `prod: dev` push, counted before its first page (`needsDevAudienceCount`).
    public mutating func devAudienceCounted(_ devices: Int) -> [Action] {
        guard devices > PushEvent.devProfileLimit else { return [] }
        return fail(
            PushFailedPayload(
                objectId: pushId, at: stamp, status: PushEvent.Status.devLimit, devices: Int64(devices)),
            reason: PushEvent.Status.devLimit, countsAttempt: false)
    }

    /// Targeting raised an error of `kind`: `policy` decides between waiting, a retry after a backoff and the
    /// end of the push. Returns the decision and what carries it out.
    public mutating func targetingFailed(
        kind: FanOutFailurePolicy.Kind, reason: String, policy: FanOutFailurePolicy, random: Double
    ) -> (FanOutFailurePolicy.Decision, [Action]) {
        guard let job, !job.state.isTerminal else { return (.wait, []) }
        let decision = policy.decide(kind: kind, reason: reason, attempts: job.attempts, random: random)
        switch decision {
        case .wait:
            return (decision, [])
        case .retry(let delay, let attempts):
            guard job.state.after(.retryLater) != nil else { return (.wait, []) }
            self.job?.attempts = attempts
            return (decision, [.postpone(attempts: attempts, reason: reason, until: at.adding(delay))])
        case .fail(let status):
            let failed = PushFailedPayload(
                objectId: pushId, at: stamp, status: status, reason: reason, stage: "targeting")
            return (decision, fail(failed, reason: reason, countsAttempt: true))
        }
    }

    /// What one recording of a batch's outcomes brings: its event's data, the targets handed back unsent (a
    /// sender shutting down), whether every target of the batch is recorded now, and a push-level refusal
    /// of the provider that ends the push.
    public struct BatchRecord: Sendable {
        public var delivered: BatchDelivered
        public var handedBack: [PushTarget]
        public var completesBatch: Bool
        public var pushFailure: String?

        public init(delivered: BatchDelivered, handedBack: [PushTarget], completesBatch: Bool, pushFailure: String?) {
            self.delivered = delivered
            self.handedBack = handedBack
            self.completesBatch = completesBatch
            self.pushFailure = pushFailure
        }
    }

    public mutating func batchRecorded(_ record: BatchRecord) -> [Action] {
        let events: [PushLogEvent] = [.batchDelivered(record.delivered)]
        guard var job, !job.state.isTerminal else { return [.append(events)] }
        var actions: [Action] = []
        if !record.handedBack.isEmpty {
            actions.append(.insertBatch(number: job.batches, targets: record.handedBack))
            job.batches += 1
            self.job = job
            actions.append(.updateJob(job))
        }
        if let failure = record.pushFailure {
            let failed = PushFailedPayload(
                objectId: pushId, at: stamp, status: FanOutFailurePolicy.status(failure), reason: failure,
                stage: "delivery")
            return actions + [.append(events)] + fail(failed, reason: failure, countsAttempt: false)
        }
        guard record.completesBatch else { return actions + [.append(events)] }
        awaiting = .lastTargetOfBatch(events: events)
        return actions + [.countPendingBatches]
    }

    /// The answer to `countPendingBatches`.
    public mutating func pendingBatchesCounted(_ pending: Int) -> [Action] {
        switch awaiting {
        case .lastPage(let events, let stoppedAtQuota):
            awaiting = nil
            return finishPage(events: events, morePages: false, batchesPending: pending > 0, stoppedAtQuota)
        case .lastTargetOfBatch(let events):
            awaiting = nil
            guard var job, let next = job.state.after(.batchRecorded(batchesPending: pending > 0)) else {
                return [.append(events)]
            }
            guard next != job.state else { return [.append(events)] }
            job.state = next
            self.job = job
            return [.updateJob(job), .append(next == .done ? events + [.completed(milestone)] : events)]
        case .cancelled, nil:
            return []
        }
    }

    /// The owner cancels the push (`onlyScheduled`: by its schedule id) and, with `delete`, removes its record.
    public mutating func cancel(onlyScheduled: Bool, delete: Bool) -> [Action] {
        let state = job?.state ?? .done
        if onlyScheduled && state != .scheduled { return [.refuse(.notFound("The push is no longer scheduled."))] }
        // Cancelling without deleting must change something, or the caller would be told it worked.
        if !delete && state.isTerminal {
            return [.refuse(.invalidParameter("The push has already ended (\(state.rawValue)); nothing to cancel."))]
        }
        guard let next = state.after(.cancelled) else { return delete ? [.append([.deleted(milestone)])] : [] }
        job?.state = next
        awaiting = .cancelled(previous: state, delete: delete)
        // Only batches no sender holds are cancelled. A leased batch is being sent: its sender sees the job
        // cancelled, sends none of its remaining targets and records what was in flight, so the record equals
        // what the providers accepted.
        return [.endJob(next, reason: nil, countsAttempt: false)]
    }

    /// The answer to `endJob`: how many batches no sender held were cancelled.
    public mutating func jobEnded(cancelledBatches: Int) -> [Action] {
        guard case .cancelled(let previous, let delete) = awaiting else { return [] }
        awaiting = nil
        var events: [PushLogEvent] = [
            .cancelled(
                PushCancelled(
                    objectId: pushId, at: stamp, previousState: previous.rawValue,
                    cancelledBatches: Int64(cancelledBatches)))
        ]
        if delete { events.append(.deleted(milestone)) }
        return [.append(events)]
    }

    /// The retention job removes the record of a push that has ended (or has no job).
    public mutating func purge() -> [Action] {
        guard job?.state.isTerminal ?? true else { return [] }
        job = nil
        return [.append([.purged(milestone)]), .removeWork]
    }

    /// How own-channel messages of the push ended.
    public enum ChannelEnding: Sendable {
        case acknowledged, expired, dropped
    }

    /// Messages on the own device channel ended (SPEC §12.2); the job is not touched: they were recorded as
    /// queued with their batch.
    public func channelMessagesEnded(_ ending: ChannelEnding, _ results: ChannelResults) -> [Action] {
        switch ending {
        case .acknowledged: [.append([.channelAcked(results)])]
        case .expired: [.append([.channelExpired(results)])]
        case .dropped: [.append([.channelDropped(results)])]
        }
    }

    // MARK: Helpers

    private var milestone: PushMilestone { PushMilestone(objectId: pushId, at: stamp) }

    private mutating func fail(_ failed: PushFailedPayload, reason: String, countsAttempt: Bool) -> [Action] {
        guard var job, let next = job.state.after(.failed) else { return [] }
        job.state = next
        if countsAttempt { job.attempts += 1 }
        self.job = job
        return [.append([.failed(failed)]), .endJob(next, reason: reason, countsAttempt: countsAttempt)]
    }
}
