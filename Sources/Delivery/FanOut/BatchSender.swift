import Foundation
import Ledger
import Logging
import PushCore

/// Sends one leased batch to the providers, all targets concurrently (libcurl multiplexes them over a few
/// HTTP/2 connections), and classifies each outcome for `PushBatches.record`.
public struct BatchSender: Sendable {
    let providers: ProviderRegistry
    let flow = FlowLimiter()
    let logger: Logger

    public init(providers: ProviderRegistry, logger: Logger = Logger(label: "pushledger.delivery")) {
        self.providers = providers
        self.logger = logger
    }

    public func send(_ claim: BatchClaim, app: App, now: Date = Date()) async -> [TargetOutcome] {
        let request = claim.request
        if let expiration = request.expiration, expiration <= now {
            return claim.targets.map { _ in .failed(reason: "Expired") }
        }
        let data: PushData
        do {
            data = try PushData(request.data)
        } catch {
            return claim.targets.map { _ in .failed(reason: "InvalidPayload") }
        }
        if let rate = request.flowControl {
            try? await flow.acquire(pushId: claim.pushId, count: claim.targets.count, rate: rate)
        }
        let plan = await BatchPlan.make(claim, data: data, app: app, providers: providers, logger: logger)
        return await withTaskGroup(of: (Int, TargetOutcome).self) { group in
            for (index, target) in claim.targets.enumerated() {
                group.addTask {
                    (index, await self.deliver(target, plan: plan, claim: claim, now: now))
                }
            }
            var outcomes = [TargetOutcome](repeating: .failed(reason: "NotSent"), count: claim.targets.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
    }

    func deliver(_ target: PushTarget, plan: BatchPlan, claim: BatchClaim, now: Date) async -> TargetOutcome {
        let request = claim.request
        let profile = target.profile ?? request.deviceProfile
        do {
            switch target.deviceType {
            case PushPlatform.ios.rawValue:
                let (client, topic) = try plan.apns(profile)
                guard let payload = try plan.apnsPayload(badge: target.badge) else {
                    return .failed(reason: "NoContentForPlatform")
                }
                var notification = APNsNotification(
                    deviceToken: target.token, payload: payload,
                    expiration: request.expiration.map { Int64($0.timeIntervalSince1970) },
                    // Re-sent batches after a crash collapse into one notification on the device.
                    collapseId: claim.pushId)
                notification.topic = topic
                return Self.classify(await client.send(notification).outcome, now: now)
            case PushPlatform.android.rawValue:
                guard !target.token.isEmpty else { return .failed(reason: "NoDeliveryChannel") }
                let client = try plan.fcm(profile)
                let ttl = request.expiration.map { max(0, Int64($0.timeIntervalSince(now))) }
                guard let message = try plan.data.fcmMessage(
                    token: target.token, notificationId: claim.pushId, timeToLive: ttl)
                else { return .failed(reason: "NoContentForPlatform") }
                return Self.classify(await client.send(message).outcome, now: now)
            default:
                return .failed(reason: "NoDeliveryChannel")
            }
        } catch let failure as ProviderRegistry.Failure {
            return .failed(reason: failure.reason)
        } catch {
            return .failed(reason: "InvalidPayload")
        }
    }

    static func classify(_ outcome: DeliveryOutcome, now: Date) -> TargetOutcome {
        switch outcome {
        case .success:
            return .delivered
        case .invalidToken(let reason, let since):
            return .invalidToken(reason: reason.description, since: since ?? now)
        case .retryable(let reason, _), .expiredProviderToken(let reason), .permanent(let reason):
            return .failed(reason: reason.description)
        }
    }
}
