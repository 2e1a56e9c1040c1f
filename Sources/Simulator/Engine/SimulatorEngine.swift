import Foundation
import NIOCore
import Synchronization

/// The transport-independent heart of the simulator: routes a complete request to the APNs, FCM, WNS, OAuth, Android
/// vendor or control look-alike and returns the answer. Called synchronously on event-loop threads, so nothing here
/// blocks.
final class SimulatorEngine: Sendable {
    let settings: Mutex<RuntimeSettings>
    let state: Mutex<SimulatorState>
    let accessTokens = Mutex(AccessTokenStore())
    /// Kept apart from FCM's, so a token of one provider is no good at the other.
    let wnsAccessTokens = Mutex(AccessTokenStore())
    let wnsCredentials: Set<WNSCredentials>
    /// The Android vendor look-alikes' access tokens, one realm per vendor (and OPPO host).
    let vendorTokens = Mutex(VendorTokenStores())
    let vivoTasks = Mutex(VivoTaskStore())
    let providerTokens: ProviderTokenVerifier
    let assertions: ServiceAccountAssertionVerifier
    let connections = Atomic<Int>(0)
    let goAways = Atomic<Int>(0)
    let messageIDs = MessageIDGenerator()
    /// Set once the listener is bound, for `GET /_sim/info`.
    let info = Mutex<SimulatorInfo?>(nil)

    init(configuration: SimulatorConfiguration) {
        self.settings = Mutex(RuntimeSettings(configuration))
        self.state = Mutex(SimulatorState(seed: configuration.failureRatios.seed))
        self.providerTokens = ProviderTokenVerifier(keys: configuration.apnsKeys)
        self.assertions = ServiceAccountAssertionVerifier(accounts: configuration.serviceAccounts)
        self.wnsCredentials = Set(configuration.wnsCredentials)
    }

    func handle(_ request: SimulatorRequest) -> SimulatorResponse {
        let path = request.pathWithoutQuery
        if path.hasPrefix(APNsRoute.prefix) {
            return self.handleAPNs(request, token: path.dropFirst(APNsRoute.prefix.count))
        }
        if path.hasPrefix(FCMRoute.prefix) {
            return self.handleFCM(request, path: path)
        }
        if path == "/token" {
            return self.handleOAuth(request)
        }
        if path.hasPrefix(WNSRoute.prefix) {
            return self.handleWNS(request, channel: path.dropFirst(WNSRoute.prefix.count))
        }
        if path == WNSRoute.tokenPath {
            return self.handleWNSToken(request)
        }
        if let route = VendorRoute(path: path) {
            return self.handleVendor(request, route: route)
        }
        if path.hasPrefix("/_sim/") {
            return self.handleControl(request, path: path)
        }
        return .json(404, #"{"reason":"BadPath"}"#)
    }

    var goAwayAfterStreams: Int? {
        self.settings.withLock { $0.goAwayAfterStreams }
    }

    func statistics() -> SimulatorStatistics {
        let (apns, fcm, oauth, distinct) = self.state.withLock { ($0.apns, $0.fcm, $0.oauth, $0.distinctTokens) }
        let (wns, wnsOAuth) = self.state.withLock { ($0.wns, $0.wnsOAuth) }
        let (vendors, vendorAuth) = self.state.withLock { ($0.vendors, $0.vendorAuth) }
        return SimulatorStatistics(
            apns: apns,
            fcm: fcm,
            oauth: oauth,
            wns: wns,
            wnsOAuth: wnsOAuth,
            connections: self.connections.load(ordering: .relaxed),
            goAways: self.goAways.load(ordering: .relaxed),
            distinctTokens: distinct,
            vendors: vendors,
            vendorAuth: vendorAuth
        )
    }

    /// Forgets counts, recordings, retry attempts and verified provider tokens; issued access tokens (and vivo task
    /// ids) stay valid so a server under test does not have to notice a reset.
    func reset() {
        let seed = self.settings.withLock { $0.failureRatios.seed }
        self.state.withLock { $0 = SimulatorState(seed: seed) }
        self.providerTokens.clearCache()
        self.connections.store(0, ordering: .relaxed)
        self.goAways.store(0, ordering: .relaxed)
    }

    func update(
        _ body: (inout RuntimeSettings) throws(RuntimeSettings.InvalidSettings) -> Void
    )
        throws(RuntimeSettings.InvalidSettings) -> RuntimeSettings
    {
        let (before, after) = try self.settings.withLock { settings throws(RuntimeSettings.InvalidSettings) in
            let before = settings
            var changed = settings
            try body(&changed)
            settings = changed
            return (before, changed)
        }
        if before.failureRatios.seed != after.failureRatios.seed {
            self.state.withLock { $0.reseed(after.failureRatios.seed) }
        }
        return after
    }

    /// The simulated provider latency for one answer.
    static func delay(for latency: SimulatorLatency) -> TimeAmount {
        var milliseconds = latency.fixedMilliseconds
        if latency.jitterMilliseconds > 0 {
            milliseconds += Int.random(in: 0...latency.jitterMilliseconds)
        }
        return .milliseconds(Int64(milliseconds))
    }
}
