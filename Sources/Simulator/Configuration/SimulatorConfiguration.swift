import Foundation

/// Everything `pushledger simulate` and the tests can set on a ``SimulatorServer``.
///
/// `rules`, `latency`, `failureRatios`, `goAwayAfterStreams`, `recording` and `vendorTokenLifetimeSeconds` can also be
/// changed while the server runs
/// (``SimulatorServer/updateSettings(_:)`` or `POST /_sim/config`); the rest is fixed at start.
public struct SimulatorConfiguration: Sendable {
    /// Loopback by default: the simulator has no authentication on its control endpoints.
    public var host: String
    /// `0` picks an ephemeral port; learn it from ``SimulatorServer/info()``.
    public var port: Int
    /// Where the generated CA and server certificate live; reused when already there.
    public var certificateDirectory: String
    /// Empty means certificate-auth mode: APNs requests need no provider token.
    public var apnsKeys: [APNsVerificationKey]
    /// Empty means any well-formed RS256 assertion is exchanged for an access token.
    public var serviceAccounts: [ServiceAccountVerificationKey]
    /// Empty means any non-empty package SID and secret get a WNS access token.
    public var wnsCredentials: [WNSCredentials]
    public var rules: [InjectionRule]
    public var latency: SimulatorLatency
    public var failureRatios: FailureRatios
    /// Sends an HTTP/2 GOAWAY once a connection has carried this many streams, then closes it when its last
    /// in-flight stream is answered. `nil` never does. Applies to connections opened after a change.
    public var goAwayAfterStreams: Int?
    public var recording: RecordingPolicy
    /// Advertised `SETTINGS_MAX_CONCURRENT_STREAMS`; Apple advertises up to 1,000.
    public var maxConcurrentStreams: Int
    /// The simulator shares a small machine with the server it tests, so it defaults to a single event-loop thread.
    public var eventLoopThreads: Int
    /// The lifetime of access tokens the vendor look-alikes issue from now on; `nil` is each vendor's own (an hour
    /// for HMS and Honor, a day for OPPO and vivo). Short lifetimes test a server's token refresh.
    public var vendorTokenLifetimeSeconds: Int?

    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        certificateDirectory: String = SimulatorConfiguration.defaultCertificateDirectory,
        apnsKeys: [APNsVerificationKey] = [],
        serviceAccounts: [ServiceAccountVerificationKey] = [],
        wnsCredentials: [WNSCredentials] = [],
        rules: [InjectionRule] = InjectionRule.defaults,
        latency: SimulatorLatency = .none,
        failureRatios: FailureRatios = .none,
        goAwayAfterStreams: Int? = nil,
        recording: RecordingPolicy = .default,
        maxConcurrentStreams: Int = 1000,
        eventLoopThreads: Int = 1,
        vendorTokenLifetimeSeconds: Int? = nil
    ) {
        self.host = host
        self.port = port
        self.certificateDirectory = certificateDirectory
        self.apnsKeys = apnsKeys
        self.serviceAccounts = serviceAccounts
        self.wnsCredentials = wnsCredentials
        self.rules = rules
        self.latency = latency
        self.failureRatios = failureRatios
        self.goAwayAfterStreams = goAwayAfterStreams
        self.recording = recording
        self.maxConcurrentStreams = maxConcurrentStreams
        self.eventLoopThreads = eventLoopThreads
        self.vendorTokenLifetimeSeconds = vendorTokenLifetimeSeconds
    }

    /// `$TMPDIR/pushledger-simulator`, so repeated demo runs reuse one CA that clients were already pointed at.
    public static var defaultCertificateDirectory: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pushledger-simulator").path
    }
}
