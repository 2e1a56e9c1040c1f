/// How the retrying `send` waits between attempts; tests pass one that records instead of sleeping.
public typealias DeliverySleep = @Sendable (Duration) async throws -> Void
