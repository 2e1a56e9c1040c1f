/// How replay folds installation events into its scratch table. Both give the same rows (the Replay tests
/// prove it against each other and against the live table); they differ only in speed.
public enum ReplayFoldStrategy: String, Sendable, CaseIterable {
    /// One ordered aggregate over the log (`installation_replay_fold`, migration 0004): seconds for a million
    /// events.
    case setBased
    /// `InstallationProjection.apply` on each event, exactly as the live table was built: the reference.
    case perEvent
}
