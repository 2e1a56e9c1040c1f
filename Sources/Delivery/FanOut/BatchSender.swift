import Foundation
import Ledger
import Logging
import PushCore

/// Sends one leased batch to the providers, a window of targets at a time in chunks (libcurl multiplexes them
/// over a few HTTP/2 connections), and classifies each outcome for `PushBatches.record`.
public struct BatchSender: Sendable {
    let providers: ProviderRegistry
    let logger: Logger
    /// Targets of one batch in flight at once. Bounded so that a cancel or a push-level failure stops the
    /// rest promptly: with four senders at most 4 × window requests are past the gate.
    let window: Int
    /// Targets whose first attempts go to libcurl as one submission (the clients' `attempt(all:)`), so that
    /// one task and one wake-up serve this many devices; `window / chunkSize` chunks of a batch are in flight.
    let chunkSize: Int

    public init(
        providers: ProviderRegistry, window: Int = 250, chunkSize: Int = 50,
        logger: Logger = Logger(label: "pushledger.delivery")
    ) {
        self.providers = providers
        self.window = max(1, window)
        self.chunkSize = max(1, min(chunkSize, window))
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
        await withTaskGroup(of: [(Int, Delivered)].self) { group in
            var next = 0
            func dispatchNext() -> Bool {
                // Checked per chunk, so nothing new leaves once the gate closes or shutdown begins.
                guard next < claim.targets.count, gate.isOpen, !Task.isShuttingDownGracefully else { return false }
                let chunk = next..<min(next + chunkSize, claim.targets.count)
                next = chunk.upperBound
                group.addTask {
                    await self.deliver(chunk, plan: plan, claim: claim, request: request, gate: gate, now: now)
                }
                return true
            }
            while next < window, dispatchNext() {}
            for await delivered in group {
                for (index, one) in delivered {
                    outcomes[index] = one.outcome
                    retries += one.retries
                }
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

    /// A target without a vendor token goes to the own device channel (SPEC §12.2): the message is stored with
    /// the batch's record and counted when the device acknowledges it.
    static func viaChannel(_ platform: PushPlatform, plan: BatchPlan) -> Delivered {
        guard let content = plan.data.content(for: platform) else { return .failed(reason: "NoContentForPlatform") }
        return Delivered(
            outcome: .queued(
                QueuedMessage(platform: platform.rawValue, data: .object(content), expireAt: plan.channelExpireAt)))
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
