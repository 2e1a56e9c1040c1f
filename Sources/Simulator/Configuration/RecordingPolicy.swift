/// What the simulator remembers per device token, for tests that ask "what did device X receive?".
///
/// Totals per provider and reason are always kept and cost nothing per token. With recording on, every token also
/// gets a compact counter keyed by a 64-bit hash of the token (about 32 MB for 1,000,000 tokens), and the first
/// `maxRecordedTokens` tokens keep their last `requestsPerToken` requests (path, headers, payload). Turn recording
/// off for load tests that must keep flat memory.
public struct RecordingPolicy: Sendable, Hashable {
    public var isEnabled: Bool
    public var requestsPerToken: Int
    /// Tokens beyond this many are counted in the totals only.
    public var maxCountedTokens: Int
    /// Tokens beyond this many get counters but no recorded requests.
    public var maxRecordedTokens: Int

    public init(
        isEnabled: Bool = true, requestsPerToken: Int = 5, maxCountedTokens: Int = 2_000_000,
        maxRecordedTokens: Int = 10_000
    ) {
        self.isEnabled = isEnabled
        self.requestsPerToken = max(0, requestsPerToken)
        self.maxCountedTokens = max(0, maxCountedTokens)
        self.maxRecordedTokens = max(0, maxRecordedTokens)
    }

    public static let `default` = RecordingPolicy()
    public static let off = RecordingPolicy(isEnabled: false)
}
