/// Where a push's fan-out stands (`push_jobs.state`). See `docs/fanout.md` for the diagram.
///
///     scheduled ──due──▶ targeting ──last page──▶ sending ──last batch recorded──▶ done
///         │                  │  └──no targets / expired──▶ done                      ▲
///         │                  └──error, attempts left──▶ targeting (later)            │
///         └─────────── cancel / delete ──▶ cancelled      failed ◀──error, none left─┘ (push-level failure)
public enum JobState: String, Sendable, CaseIterable {
    case scheduled
    case targeting
    case sending
    case done
    case cancelled
    case failed

    /// No further work is done for a push in these states.
    public var isTerminal: Bool { self == .done || self == .cancelled || self == .failed }

    /// States the targeting loop picks up once `send_at` has come.
    public static let due: [JobState] = [.scheduled, .targeting]

    /// States whose batches are handed to senders.
    public static let sendable: [JobState] = [.targeting, .sending]

    /// The state a push starts in: a scheduled one waits for its time; one sent to a device list is targeted
    /// as it is accepted (`targets` is how many it found, nil when it expired first); any other is targeted
    /// by the loop.
    public static func initial(scheduled: Bool, deviceTargets: Int?, listed: Bool) -> JobState {
        if scheduled { return .scheduled }
        guard listed else { return .targeting }
        guard let deviceTargets, deviceTargets > 0 else { return .done }
        return .sending
    }

    /// The state after `event`, or nil when the event does not apply in this state (a late outcome for a
    /// push already ended, a second cancel): the caller then changes nothing. Pure, so every transition of
    /// the fan-out is tested without a database.
    public func after(_ event: JobEvent) -> JobState? {
        if isTerminal { return nil }
        switch event {
        case .pageTargeted(let morePages, let batchesPending):
            guard JobState.due.contains(self) else { return nil }
            if morePages { return .targeting }
            return batchesPending ? .sending : .done
        case .expired:
            return JobState.due.contains(self) ? .done : nil
        case .batchRecorded(let batchesPending):
            // While targeting goes on, a recorded batch changes nothing: the last page decides.
            guard self == .sending else { return self == .targeting ? .targeting : nil }
            return batchesPending ? .sending : .done
        case .retryLater:
            return JobState.due.contains(self) ? self : nil
        case .cancelled:
            return .cancelled
        case .failed:
            return .failed
        }
    }
}

/// What happens to a push's job; `JobState.after(_:)` says where it leads.
public enum JobEvent: Sendable, Equatable {
    /// A page of targets was written; `morePages` when the audience is not exhausted, `batchesPending` when
    /// some batch still waits to be sent.
    case pageTargeted(morePages: Bool, batchesPending: Bool)
    /// Its expiration came before it was targeted.
    case expired
    /// A batch's outcomes were recorded.
    case batchRecorded(batchesPending: Bool)
    /// Targeting failed and will be tried again after a backoff.
    case retryLater
    /// Cancelled or deleted by its owner.
    case cancelled
    /// Ended with a reason: no retries left, a push-level provider refusal, the dev-profile limit.
    case failed
}

/// A leased unit of delivery (`push_batches.state`).
public enum BatchState: String, Sendable, CaseIterable {
    /// Waiting for a sender, or leased to one (`claimed_until` in the future).
    case pending
    /// Every target's outcome is recorded (each exactly once).
    case done
    /// Cancelled before a sender took it; nothing of it was sent.
    case cancelled

    /// The state after `event`, or nil when it does not apply (a recording of a batch already done, a lease
    /// of a batch already recorded): only the first recording of each target counts.
    public func after(_ event: BatchEvent) -> BatchState? {
        guard self == .pending else { return nil }
        switch event {
        case .leased(let leaseLapsed, let jobSendable):
            // Free, or its sender's lease ran out (a dead sender); never for a push that ended.
            return leaseLapsed && jobSendable ? .pending : nil
        case .recorded(let completesBatch): return completesBatch ? .done : .pending
        case .jobEnded(let leaseLapsed): return leaseLapsed ? .cancelled : .pending
        }
    }
}

/// What happens to a batch; `BatchState.after(_:)` says where it leads.
public enum BatchEvent: Sendable, Equatable {
    /// A sender asks to lease it; `leaseLapsed` when no live lease holds it, `jobSendable` while its push is
    /// targeting or sending.
    case leased(leaseLapsed: Bool, jobSendable: Bool)
    /// Outcomes of some of its targets were recorded; `completesBatch` when every target's now is.
    case recorded(completesBatch: Bool)
    /// Its push was cancelled or failed: a batch no sender holds is cancelled; a leased one stays with its
    /// sender, which stops dispatching and records what was in flight.
    case jobEnded(leaseLapsed: Bool)
}
