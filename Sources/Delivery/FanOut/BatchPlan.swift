import Foundation
import Ledger
import Logging
import PushCore

/// What every send of one batch shares, worked out once before the batch fans out: the provider client of
/// each profile in the batch (one registry lookup per profile, not per device), the APNs payload for devices
/// without their own badge, and the WNS payload (the same for every Windows device).
struct BatchPlan: Sendable {
    let data: PushData
    private let apnsClients: [String: Result<APNsRoute, ProviderRegistry.Failure>]
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
        let client: APNsClient
        let topic: String
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
        // The profiles each platform's targets use, in one pass over the batch (three filtered copies of the
        // targets took 1.8 % of the server's time outside libcurl). Targets without a vendor token go to the
        // own channel and need no provider client.
        var profilesByPlatform: [PushPlatform: Set<String>] = [:]
        for target in claim.targets where !target.token.isEmpty {
            guard let platform = PushPlatform(rawValue: target.deviceType) else { continue }
            profilesByPlatform[platform, default: []].insert(target.profile ?? request.deviceProfile ?? "")
        }
        func profiles(_ platform: PushPlatform) -> Set<String> { profilesByPlatform[platform] ?? [] }
        var apns: [String: Result<APNsRoute, ProviderRegistry.Failure>] = [:]
        for profile in profiles(.ios) {
            do {
                let (client, topic) = try await providers.apnsClient(
                    app: app, profile: profile, prod: request.prod, topic: request.topic)
                apns[profile] = .success(APNsRoute(client: client, topic: topic))
            } catch {
                logger.warning("cannot deliver push \(claim.pushId) over APNs (profile '\(profile)'): \(error)")
                apns[profile] = .failure(error)
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
            data: data, apnsClients: apns, fcmClients: fcm, wnsClients: wns, vendorLanes: lanes,
            fcmLeanCloudContent: Result { () throws(PushDataError) in
                try data.vendorContent(for: .fcm, notificationId: claim.pushId)?.titled(app.name)
            },
            sharedPayload: shared,
            wnsPayload: Result { () throws(PushDataError) in try data.wnsPayload(notificationId: claim.pushId) },
            pushId: claim.pushId, app: app, pushFailure: pushFailure,
            channelExpireAt: request.expiration
                ?? now.addingTimeInterval(Double(app.intSetting("channel.ttl_days")) * 86400))
    }

    func apns(_ profile: String?) throws(ProviderRegistry.Failure) -> (APNsClient, String) {
        let route = try apnsClients[profile ?? "", default: .failure(.noCredentials("apns"))].get()
        return (route.client, route.topic)
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
