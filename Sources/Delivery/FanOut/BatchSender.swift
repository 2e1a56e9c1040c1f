import Foundation
import Ledger
import Logging
import PushCore

/// Sends one leased batch to the providers, a window of targets at a time (libcurl multiplexes them over a
/// few HTTP/2 connections), and classifies each outcome for `PushBatches.record`.
public struct BatchSender: Sendable {
    let providers: ProviderRegistry
    let logger: Logger
    /// Targets of one batch in flight at once. Bounded so that a cancel or a push-level failure stops the
    /// rest promptly: with four senders at most 4 × window requests are past the gate.
    let window: Int

    public init(providers: ProviderRegistry, window: Int = 250, logger: Logger = Logger(label: "pushledger.delivery")) {
        self.providers = providers
        self.window = max(1, window)
        self.logger = logger
    }

    /// What became of a batch: an outcome per target, and the reason the whole push failed, if it did.
    public struct Result: Sendable {
        public var outcomes: [TargetOutcome]
        public var pushFailure: String?
        /// Provider requests repeated after a 429, a 5xx or a connection failure, over the whole batch.
        public var retries: Int = 0
    }

    func send(_ claim: BatchClaim, app: App, gate: DispatchGate, now: Date) async -> Result {
        let request: PushRequest
        switch claim.request {
        case .success(let parsed): request = parsed
        case .failure(let error):
            // The stored request no longer reads: nothing can be sent, ever; the push fails with the reason.
            return Result(outcomes: claim.targets.map { _ in .notSent }, pushFailure: error.message)
        }
        if let expiration = request.expiration, expiration <= now {
            return Result(outcomes: claim.targets.map { _ in .failed(reason: "Expired") }, pushFailure: nil)
        }
        let data: PushData
        do {
            data = try PushData(request.data)
        } catch {
            return Result(outcomes: claim.targets.map { _ in .notSent }, pushFailure: "invalid payload: \(error)")
        }
        let plan = await BatchPlan.make(
            claim, request: request, data: data, app: app, providers: providers, now: now, logger: logger)
        if let failure = plan.pushFailure { gate.stop(.pushFailed(failure)) }
        var outcomes = [TargetOutcome](repeating: .notSent, count: claim.targets.count)
        var retries = 0
        await withTaskGroup(of: (Int, Delivered).self) { group in
            var next = 0
            func dispatchNext() -> Bool {
                // Checked per target, so nothing new leaves once the gate closes or shutdown begins.
                guard next < claim.targets.count, gate.isOpen, !Task.isShuttingDownGracefully else { return false }
                let index = next
                next += 1
                let target = claim.targets[index]
                group.addTask {
                    (
                        index,
                        await self.deliver(target, plan: plan, claim: claim, request: request, gate: gate, now: now)
                    )
                }
                return true
            }
            while next < window, dispatchNext() {}
            for await (index, delivered) in group {
                outcomes[index] = delivered.outcome
                retries += delivered.retries
                _ = dispatchNext()
            }
        }
        return Result(outcomes: outcomes, pushFailure: gate.pushFailure, retries: retries)
    }

    /// One target's outcome and how many times its request was repeated.
    struct Delivered: Sendable {
        var outcome: TargetOutcome
        var retries = 0

        static func failed(reason: String) -> Delivered { Delivered(outcome: .failed(reason: reason)) }
    }

    func deliver(
        _ target: PushTarget, plan: BatchPlan, claim: BatchClaim, request: PushRequest, gate: DispatchGate, now: Date
    ) async -> Delivered {
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
                    expiration: request.expiration.map { LeanDate.unixMilliseconds($0) / 1000 },
                    // Re-sent batches after a crash collapse into one notification on the device.
                    collapseId: claim.pushId)
                notification.topic = topic
                return await Self.timed("apns", gate: gate, now: now) { await client.send(notification) }
            case PushPlatform.android.rawValue:
                guard !target.token.isEmpty else { return Self.viaChannel(.android, plan: plan) }
                let client = try plan.fcm(profile)
                let ttl = request.expiration.map { max(0, Int64($0.timeIntervalSince(now).rounded(.down))) }
                guard
                    let message = try plan.data.fcmMessage(
                        token: target.token, notificationId: claim.pushId, timeToLive: ttl)
                else { return .failed(reason: "NoContentForPlatform") }
                return await Self.timed("fcm", gate: gate, now: now) { await client.send(message) }
            case PushPlatform.windows.rawValue:
                guard !target.token.isEmpty else { return Self.viaChannel(.windows, plan: plan) }
                let client = try plan.wns(profile)
                guard let payload = try plan.windowsPayload() else { return .failed(reason: "NoContentForPlatform") }
                let notification = WNSNotification(
                    channelURI: target.token, payload: payload,
                    timeToLive: request.expiration.map { Int64($0.timeIntervalSince(now).rounded(.down)) })
                return await Self.timed("wns", gate: gate, now: now) { await client.send(notification) }
            default:
                return .failed(reason: "NoDeliveryChannel")
            }
        } catch let failure as ProviderRegistry.Failure {
            return .failed(reason: failure.reason)
        } catch {
            return .failed(reason: "InvalidPayload")
        }
    }

    /// A target without a vendor token goes to the own device channel (SPEC §12.2): the message is stored with
    /// the batch's record and counted when the device acknowledges it.
    static func viaChannel(_ platform: PushPlatform, plan: BatchPlan) -> Delivered {
        guard let content = plan.data.content(for: platform) else { return .failed(reason: "NoContentForPlatform") }
        return Delivered(
            outcome: .queued(
                QueuedMessage(platform: platform.rawValue, data: .object(content), expireAt: plan.channelExpireAt)))
    }

    /// Runs one provider send, times it for the metrics and classifies its result.
    static func timed(
        _ provider: String, gate: DispatchGate, now: Date, _ send: () async -> DeliveryResult
    ) async -> Delivered {
        let started = ContinuousClock.now
        let result = await send()
        FanOutMetrics.providerSend(provider, ContinuousClock.now - started, attempts: result.attempts)
        return Delivered(outcome: classify(result.outcome, gate: gate, now: now), retries: result.attempts - 1)
    }

    /// The target's outcome; an answer that condemns the push itself (`ProviderReason.failsWholePush`)
    /// also closes the gate with a reason naming the provider.
    static func classify(_ outcome: DeliveryOutcome, gate: DispatchGate? = nil, now: Date) -> TargetOutcome {
        switch outcome {
        case .success:
            return .delivered
        case .invalidToken(let reason, let since):
            return .invalidToken(reason: reason.description, since: since ?? now)
        case .retryable(let reason, _):
            return .failed(reason: reason.description)
        case .expiredProviderToken(let reason), .permanent(let reason):
            if reason.failsWholePush { gate?.stop(.pushFailed("\(reason.providerName) refused the push: \(reason)")) }
            return .failed(reason: reason.description)
        }
    }
}
