/// An append lost a race: the stream already has the expected version. Callers retry the command or answer
/// with a conflict; it is never a 500.
public struct VersionConflict: Error, Sendable {
    public let stream: String
    public let expected: Int
}

/// A transaction wrote before taking its stream locks, which would break per-stream ordering.
public struct StreamLockOrderViolation: Error, Sendable {}
