/// Everything the simulator learns while serving: totals, per-token counters and recordings, retry-rule attempts and
/// the failure-ratio generator. Lives behind one mutex, taken once per request, so it stays a plain value type.
struct SimulatorState {
    var apns = ProviderStatistics()
    var fcm = ProviderStatistics()
    var oauth = ProviderStatistics()
    var wns = ProviderStatistics()
    var wnsOAuth = ProviderStatistics()
    /// The Android vendor look-alikes' sends, keyed by vendor (`SimulatorState+Vendors.swift`).
    var vendors: [SimulatedProvider: VendorStatistics] = [:]
    /// Their token endpoints; `accepted` is the number of tokens issued.
    var vendorAuth: [SimulatedProvider: ProviderStatistics] = [:]
    /// Keyed by the token's hash rather than the token: 8-byte keys keep a million tokens around 32 MB. A 64-bit
    /// collision among a million tokens has odds of about 3 in 100 million.
    private(set) var tokenCounters: [Int: TokenCounters] = [:]
    private(set) var recordings: [String: [RecordedRequest]] = [:]
    /// Only tokens matching a rule with `failingAttempts` are tracked here, so it stays small.
    private var attempts: [String: Int] = [:]
    private var random: SplitMix64
    private(set) var messageSequence = 0

    init(seed: UInt64) {
        self.random = SplitMix64(seed: seed)
    }

    mutating func reseed(_ seed: UInt64) {
        self.random = SplitMix64(seed: seed)
    }

    mutating func nextMessageNumber() -> Int {
        self.messageSequence += 1
        return self.messageSequence
    }

    /// Applies the matching rule and the failure ratios to a request that passed validation.
    mutating func injectedFailure(
        provider: SimulatedProvider, token: String?, rule: InjectionRule?, ratios: FailureRatios
    ) -> ProviderRejection? {
        if let rule, let token, self.isFailing(rule, token: token) {
            return ProviderRejection(status: rule.status, reason: rule.reason)
        }
        return self.transientFailureStatus(ratios).map { .transient(status: $0, for: provider) }
    }

    /// Whether a matching rule fails this attempt for `token`, counting the attempt for rules that fail only the
    /// first few.
    mutating func isFailing(_ rule: InjectionRule, token: String) -> Bool {
        guard let failingAttempts = rule.failingAttempts else { return true }
        let attempt = self.attempts[token, default: 0] + 1
        self.attempts[token] = attempt
        return attempt <= failingAttempts
    }

    /// The failure ratios' draw for one request: 429, 500, 503, or nil for no injected failure.
    mutating func transientFailureStatus(_ ratios: FailureRatios) -> Int? {
        guard ratios.isEnabled else { return nil }
        let draw = self.random.nextUnit()
        if draw < ratios.tooManyRequests {
            return 429
        }
        if draw < ratios.tooManyRequests + ratios.internalServerError {
            return 500
        }
        if draw < ratios.tooManyRequests + ratios.internalServerError + ratios.serviceUnavailable {
            return 503
        }
        return nil
    }

    /// Counts one provider answer and, when the policy allows, records the request under its token.
    mutating func count(
        provider: SimulatedProvider,
        token: String?,
        rejection: String?,
        recording: RecordingPolicy,
        record: () -> RecordedRequest
    ) {
        switch provider {
        case .apns: self.apns.count(rejection: rejection)
        case .fcm: self.fcm.count(rejection: rejection)
        case .wns: self.wns.count(rejection: rejection)
        // A vendor request carries many devices; `countVendorSend` counts it.
        case .hms, .honor, .mi, .oppo, .vivo, .mz: break
        }
        guard let token else { return }
        self.countToken(token, accepted: rejection == nil, recording: recording, record: record)
    }

    /// Counts one request for one device token and, when the policy allows, records it under the token.
    mutating func countToken(
        _ token: String, accepted: Bool, recording: RecordingPolicy, record: () -> RecordedRequest
    ) {
        guard recording.isEnabled else { return }
        let key = token.hashValue
        if let index = self.tokenCounters.index(forKey: key) {
            self.tokenCounters.values[index].requests &+= 1
            if accepted { self.tokenCounters.values[index].accepted &+= 1 }
        } else if self.tokenCounters.count < recording.maxCountedTokens {
            self.tokenCounters[key] = TokenCounters(requests: 1, accepted: accepted ? 1 : 0)
        }
        guard recording.requestsPerToken > 0 else { return }
        if self.recordings[token] != nil {
            self.recordings[token]!.append(record())
            let excess = self.recordings[token]!.count - recording.requestsPerToken
            if excess > 0 { self.recordings[token]!.removeFirst(excess) }
        } else if self.recordings.count < recording.maxRecordedTokens {
            self.recordings[token] = [record()]
        }
    }

    func counters(for token: String) -> TokenCounters? {
        self.tokenCounters[token.hashValue]
    }

    var distinctTokens: Int { self.tokenCounters.count }
}
