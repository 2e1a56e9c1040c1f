import Foundation
import Ledger
import Logging
import PushCore

/// What every send of one batch shares, worked out once before the batch fans out: the provider client of
/// each profile in the batch (one registry lookup per profile, not per device), the APNs payload for devices
/// without their own badge, and the WNS payload (the same for every Windows device).
struct BatchPlan: Sendable {
    let data: PushData
    private let apnsClients: [APNsRoute.Key: Result<APNsRoute, ProviderRegistry.Failure>]
    /// The app's APNs keys by team, which choose an iOS device's client when there are several.
    private let apnsTeams: APNsTeams
    private let request: PushRequest
    private let fcmClients: [String: Result<FCMClient, ProviderRegistry.Failure>]
    private let wnsClients: [String: Result<WNSClient, ProviderRegistry.Failure>]
    private let vendorLanes: [VendorLane.Key: Result<VendorLane, LaneFailure>]
    /// The content of `vendor: fcm` devices, shaped for LeanCloud's FCM module (nil: the push has none).
    let fcmLeanCloudContent: Result<VendorContent?, PushDataError>
    private let sharedPayload: Result<APNsBody?, PushDataError>
    private let wnsPayload: Result<WNSPayload?, PushDataError>
    let pushId: String
    /// The app the batch belongs to (a vendor's quota stop is the app's).
    let app: App
    /// Set when a provider's configured credentials cannot be used: the push fails with this (naming the setting).
    let pushFailure: String?
    /// Until when an own-channel message waits for its device: the push's expiration, else `channel.ttl_days`.
    let channelExpireAt: Date
    /// The first channel the push named, `_channel` of own-channel content; nil when it named none, or when the
    /// app does not admit the LeanCloud SDK's login, the one client that reads it (so JSON-dialect devices of
    /// other apps get their content as before).
    let channelName: String?

    /// An APNs body as bytes, encoded once and shared by every device that gets the same one.
    struct APNsBody: Sendable {
        let bytes: [UInt8]
        let pushType: APNsPushType
        let priority: Int
        /// The push's own `collapse-id`, nil when it names none.
        let collapseId: String?

        init(_ payload: APNsPayload) {
            bytes = Array(payload.body.utf8)
            pushType = payload.pushType
            priority = payload.priority
            collapseId = payload.collapseId
        }
    }

    struct APNsRoute: Sendable {
        /// A profile's or the default settings (`team` nil), or a team's key.
        struct Key: Hashable, Sendable {
            let profile: String
            let team: String?
        }

        let client: APNsClient
        /// The topic of the settings or team, for devices whose push and installation name none.
        let topic: String?
    }

    /// Why a vendor lane's devices are not sent: their recorded reason.
    struct LaneFailure: Error, Sendable {
        let reason: String
    }

    static func make(
        _ claim: BatchClaim, request: PushRequest, data: PushData, app: App, providers: ProviderRegistry, now: Date,
        logger: Logger
    ) async -> BatchPlan {
        var lanes: [VendorLane.Key: Result<VendorLane, LaneFailure>] = [:]
        let timeToLive = request.expiration.map { max(0, Int64($0.timeIntervalSince(now).rounded(.down))) }
        for target in claim.targets where !target.token.isEmpty {
            guard case .vendor(let vendor) = DeliveryRoute(target) else { continue }
            let key = VendorLane.Key(vendor: vendor, profile: target.profile ?? request.deviceProfile ?? "")
            guard lanes[key] == nil else { continue }
            lanes[key] = await VendorLane.make(
                key, app: app, data: data, pushId: claim.pushId, timeToLive: timeToLive, providers: providers,
                now: now, logger: logger)
        }
        // The profiles each platform's targets use, in one pass over the batch rather than three filtered copies
        // of the targets, which every batch of a fan-out would pay for. Targets without a vendor token go to the
        // own channel and need no provider client; iOS targets find theirs by `apnsKey` (a profile or a team).
        var profilesByPlatform: [PushPlatform: Set<String>] = [:]
        for target in claim.targets where !target.token.isEmpty {
            guard let platform = PushPlatform(rawValue: target.deviceType), platform != .ios else { continue }
            profilesByPlatform[platform, default: []].insert(target.profile ?? request.deviceProfile ?? "")
        }
        func profiles(_ platform: PushPlatform) -> Set<String> { profilesByPlatform[platform] ?? [] }
        let teams = APNsTeams(settings: app.settings)
        var apns: [APNsRoute.Key: Result<APNsRoute, ProviderRegistry.Failure>] = [:]
        for target in claim.targets where target.deviceType == PushPlatform.ios.rawValue && !target.token.isEmpty {
            guard case .success(let key) = apnsKey(target, teams: teams, request: request), apns[key] == nil
            else { continue }
            do {
                let route = try await providers.apnsClient(
                    app: app, profile: key.profile, prod: request.prod, team: key.team.flatMap { teams.teams[$0] })
                apns[key] = .success(APNsRoute(client: route.client, topic: route.topic))
            } catch {
                logger.warning(
                    "cannot deliver push \(claim.pushId) over APNs (\(key.team.map { "team \($0)" } ?? "profile '\(key.profile)'")): \(error)"
                )
                apns[key] = .failure(error)
            }
        }
        var fcm: [String: Result<FCMClient, ProviderRegistry.Failure>] = [:]
        for profile in profiles(.android) {
            do {
                fcm[profile] = .success(try await providers.fcmClient(app: app, profile: profile))
            } catch {
                logger.warning("cannot deliver push \(claim.pushId) over FCM (profile '\(profile)'): \(error)")
                fcm[profile] = .failure(error)
            }
        }
        var wns: [String: Result<WNSClient, ProviderRegistry.Failure>] = [:]
        for profile in profiles(.windows) {
            do {
                wns[profile] = .success(try await providers.wnsClient(app: app, profile: profile))
            } catch {
                logger.warning("cannot deliver push \(claim.pushId) over WNS (profile '\(profile)'): \(error)")
                wns[profile] = .failure(error)
            }
        }
        let shared = Result { () throws(PushDataError) -> APNsBody? in
            try data.apnsPayload(notificationId: claim.pushId, badge: nil).map(APNsBody.init)
        }
        var setupFailures: [ProviderRegistry.Failure] = []
        for case .failure(let failure) in apns.values { setupFailures.append(failure) }
        for case .failure(let failure) in fcm.values { setupFailures.append(failure) }
        for case .failure(let failure) in wns.values { setupFailures.append(failure) }
        let pushFailure = setupFailures.lazy.compactMap(\.pushFailure).first
        return BatchPlan(
            data: data, apnsClients: apns, apnsTeams: teams, request: request, fcmClients: fcm, wnsClients: wns,
            vendorLanes: lanes,
            fcmLeanCloudContent: Result { () throws(PushDataError) in
                try data.vendorContent(for: .fcm, notificationId: claim.pushId)?.titled(app.name)
            },
            sharedPayload: shared,
            wnsPayload: Result { () throws(PushDataError) in try data.wnsPayload(notificationId: claim.pushId) },
            pushId: claim.pushId, app: app, pushFailure: pushFailure,
            channelExpireAt: request.expiration
                ?? now.addingTimeInterval(Double(app.intSetting("channel.ttl_days")) * 86400),
            channelName: app.setting(ChannelLogin.settingKey)?.stringValue == ChannelLogin.installationId
                ? request.namedChannels.first : nil)
    }

    /// Which APNs settings or team a device is sent with (`APNsTeams.choose`).
    static func apnsKey(
        _ target: PushTarget, teams: APNsTeams, request: PushRequest
    ) -> Result<APNsRoute.Key, ProviderRegistry.Failure> {
        let profile = target.profile ?? request.deviceProfile ?? ""
        switch teams.choose(
            pushTeam: request.apnsTeamId, installationTeam: target.apnsTeam,
            topic: request.topic ?? target.apnsTopic, profile: profile)
        {
        case .defaultSettings: return .success(APNsRoute.Key(profile: profile, team: nil))
        case .team(let team): return .success(APNsRoute.Key(profile: "", team: team.id))
        case .unknownTeam(let team): return .failure(.noCredentials("apns team \(team)"))
        case .ambiguous(let among): return .failure(.ambiguousTeam(among))
        }
    }

    /// The APNs client of an iOS target and its topic: the push's, else the installation's `apnsTopic`, else
    /// its settings' or team's.
    func apns(_ target: PushTarget) throws(ProviderRegistry.Failure) -> (APNsClient, String) {
        let key = try Self.apnsKey(target, teams: apnsTeams, request: request).get()
        let route = try apnsClients[key, default: .failure(.noCredentials("apns"))].get()
        guard let topic = request.topic ?? target.apnsTopic ?? route.topic, !topic.isEmpty else {
            throw .noCredentials("apns topic")
        }
        return (route.client, topic)
    }

    func fcm(_ profile: String?) throws(ProviderRegistry.Failure) -> FCMClient {
        try fcmClients[profile ?? "", default: .failure(.noCredentials("fcm"))].get()
    }

    func vendorLane(_ vendor: AndroidVendor, _ profile: String?) -> Result<VendorLane, LaneFailure> {
        vendorLanes[VendorLane.Key(vendor: vendor, profile: profile ?? "")]
            ?? .failure(LaneFailure(reason: "NoCredentials"))
    }

    func wns(_ profile: String?) throws(ProviderRegistry.Failure) -> WNSClient {
        try wnsClients[profile ?? "", default: .failure(.noCredentials("wns"))].get()
    }

    /// The Windows notification body, nil when the push has no Windows content.
    func windowsPayload() throws(PushDataError) -> WNSPayload? {
        try wnsPayload.get()
    }

    /// The payload for a device: shared unless the push increments badges and this device has its own.
    func apnsPayload(badge: Int64?) throws(PushDataError) -> APNsBody? {
        guard let badge else { return try sharedPayload.get() }
        return try data.apnsPayload(notificationId: pushId, badge: badge).map(APNsBody.init)
    }
}
