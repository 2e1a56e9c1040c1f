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
}

/// A leased unit of delivery (`push_batches.state`).
public enum BatchState: String, Sendable, CaseIterable {
    /// Waiting for a sender, or leased to one (`claimed_until` in the future).
    case pending
    /// Its outcomes are recorded (exactly once).
    case done
    /// Cancelled before a sender took it; nothing of it was sent.
    case cancelled
}
