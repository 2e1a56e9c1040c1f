/// The part of ``SimulatorConfiguration`` that may change while the simulator runs, read once per request.
struct RuntimeSettings: Sendable {
    var rules: [InjectionRule]
    var latency: SimulatorLatency
    var failureRatios: FailureRatios
    var goAwayAfterStreams: Int?
    var recording: RecordingPolicy
    var vendorTokenLifetimeSeconds: Int?

    init(_ configuration: SimulatorConfiguration) {
        self.rules = configuration.rules
        self.latency = configuration.latency
        self.failureRatios = configuration.failureRatios
        self.goAwayAfterStreams = configuration.goAwayAfterStreams
        self.recording = configuration.recording
        self.vendorTokenLifetimeSeconds = configuration.vendorTokenLifetimeSeconds
    }

    func apply(to configuration: inout SimulatorConfiguration) {
        configuration.rules = self.rules
        configuration.latency = self.latency
        configuration.failureRatios = self.failureRatios
        configuration.goAwayAfterStreams = self.goAwayAfterStreams
        configuration.recording = self.recording
        configuration.vendorTokenLifetimeSeconds = self.vendorTokenLifetimeSeconds
    }

    func vendorTokenLifetime(in realm: VendorTokenRealm) -> Int {
        self.vendorTokenLifetimeSeconds ?? realm.defaultLifetimeSeconds
    }

    func rule(for provider: SimulatedProvider, token: Substring) -> InjectionRule? {
        self.rules.first { $0.provider == provider && $0.match.matches(token) }
    }
}
