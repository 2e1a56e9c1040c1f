import Foundation
import Ledger
import Logging
import PushCore

/// The devices of one vendor profile in a batch, as one plan: the vendor's client and the message every one of
/// them gets (the content is the push's, the same for each), built once per batch. Its devices go out in lists
/// (`VendorClient.batchLimit`), so a lane is sent in chunks of its own (`BatchSender.chunks`).
struct VendorLane: Sendable {
    struct Key: Hashable, Sendable {
        let vendor: AndroidVendor
        let profile: String
    }

    let key: Key
    let client: any VendorClient
    let message: VendorMessage

    static func make(
        _ key: Key, app: App, data: PushData, pushId: String, timeToLive: Int64?, providers: ProviderRegistry,
        now: Date, logger: Logger
    ) async -> Result<VendorLane, BatchPlan.LaneFailure> {
        if await providers.isOverQuota(app: app, vendor: key.vendor, profile: key.profile, now: now) {
            return .failure(BatchPlan.LaneFailure(reason: "VendorQuota"))
        }
        let client: any VendorClient
        do {
            client = try await providers.vendorClient(app: app, vendor: key.vendor, profile: key.profile)
        } catch let failure as ProviderRegistry.Failure {
            logger.warning(
                "cannot deliver push \(pushId) through \(key.vendor.rawValue) (profile '\(key.profile)'): \(failure)")
            return .failure(BatchPlan.LaneFailure(reason: failure.reason))
        } catch {
            return .failure(BatchPlan.LaneFailure(reason: "NoCredentials"))
        }
        let content: VendorContent?
        do {
            content = try data.vendorContent(for: key.vendor, notificationId: pushId)
        } catch {
            return .failure(BatchPlan.LaneFailure(reason: "InvalidPayload"))
        }
        guard let content else { return .failure(BatchPlan.LaneFailure(reason: "NoContentForPlatform")) }
        switch client.message(for: content.titled(app.name), timeToLive: timeToLive) {
        case .success(let message): return .success(VendorLane(key: key, client: client, message: message))
        case .failure(let refusal): return .failure(BatchPlan.LaneFailure(reason: refusal.description))
        }
    }
}
