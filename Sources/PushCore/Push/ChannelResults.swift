/// `PushChannelAcked` / `PushChannelExpired` / `PushChannelDropped`: messages of one push on the own device
/// channel that reached an end together (SPEC §12.2). Acks are successes; expiries and drops are errors.
public struct ChannelResults: PushEventPayload, Equatable {
    public var objectId: String
    public var at: String
    /// How many messages ended, per platform (`android`, `windows`).
    public var platforms: [String: Int64]
    /// The installations (objectIds) they were for, so an open can be attributed and `explain` can tell.
    public var installations: [String]

    public init(objectId: String, at: String, platforms: [String: Int64], installations: [String]) {
        self.objectId = objectId
        self.at = at
        self.platforms = platforms
        self.installations = installations
    }

    public var count: Int64 { platforms.values.reduce(0, +) }
}
