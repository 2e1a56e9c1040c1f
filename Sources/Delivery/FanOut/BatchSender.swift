import Foundation
import Ledger
import Logging
import PushCore

/// Sends one leased batch to the providers, a window of targets at a time in chunks (the HTTP/2 library
/// multiplexes them over a few connections), and classifies each outcome for `PushBatches.record`.
public struct BatchSender: Sendable {
    /// Half a window is one recorded part: one transaction for the part's devices. 500 halved the database's
    /// cost per device of 250's and let the senders keep pace with nghttp2 (docs/decisions.md, "The send window
    /// is 500").
    public static let defaultWindow = 500

    let providers: ProviderRegistry
    let logger: Logger
    /// Targets of one batch in flight at once. Bounded so that a cancel or a push-level failure stops the
    /// rest promptly: with four senders at most 4 × window requests are past the gate.
    let window: Int
    /// Targets whose first attempts go to libcurl as one submission (the clients' `attempt(all:)`), so that
    /// one task and one wake-up serve this many devices; `window / chunkSize` chunks of a batch are in flight.
    let chunkSize: Int

    public init(
        providers: ProviderRegistry, window: Int = BatchSender.defaultWindow, chunkSize: Int = 50,
        logger: Logger = Logger(label: "pushledger.delivery")
    ) {
        self.providers = providers
        self.window = max(1, window)
        self.chunkSize = max(1, min(chunkSize, window))
        self.logger = logger
    }

    /// Records some targets' outcomes (the fan-out's `recordKeepingOutcomes`), with the push's failure when
    /// it is known; answers what the record came to, nil when the batch had been recorded already. Throws only
    /// when recording is given up.
    typealias Recorder =
        @Sendable (
            _ part: [(index: Int, outcome: TargetOutcome)], _ pushFailure: String?
        ) async throws -> PushBatches.RecordedPart?

    /// What became of a batch, over all its recorded parts: for the one log line per batch.
    struct Summary: Sendable {
        var successes: Int64 = 0
        var errors: Int64 = 0
        var reasons: [String: Int64] = [:]
        /// Provider requests repeated after a 429, a 5xx or a connection failure.
        var retries = 0
        var parts = 0
        var pushFailure: String?

        mutating func add(_ recorded: BatchDelivered) {
            successes += recorded.successes
            errors += recorded.errors
            reasons.merge(recorded.reasons, uniquingKeysWith: +)
            parts += 1
        }
    }

    /// Ends a batch without sending any of its unrecorded targets (they count as `notSent`), for `reason`.
    func endWithoutSending(_ claim: BatchClaim, pushFailure: String, record: Recorder) async throws -> Summary {
        try await recordAll(claim, as: .notSent, pushFailure: pushFailure, record: record)
    }

    private func recordAll(
        _ claim: BatchClaim, as outcome: TargetOutcome, pushFailure: String?, record: Recorder
    ) async throws -> Summary {
        var summary = Summary(pushFailure: pushFailure)
        let part = claim.recorded.unrecorded.map { (index: $0, outcome: outcome) }
        if !part.isEmpty, let recorded = try await record(part, pushFailure) { summary.add(recorded.delivered) }
        return summary
    }

    /// Sends the batch's unrecorded targets, a chunk at a time, and has their outcomes recorded in parts while
    /// it goes on. Requests in flight and answers not yet recorded are never more than `window` together: a
    /// chunk leaves only when it fits beside them, and a part is recorded once half a window of answers waits
    /// (or nothing else can move). So a `kill -9` can re-send at most `window` devices of this sender,
    /// whatever the load: the rest are recorded and skipped by whoever takes the batch over.
    func send(
        _ claim: BatchClaim, app: App, gate: DispatchGate, now: Date, record: @escaping Recorder
    ) async throws -> Summary {
        let request: PushRequest
        switch claim.request {
        case .success(let parsed): request = parsed
        case .failure(let error):
            // The stored request no longer reads: nothing can be sent, ever; the push fails with the reason.
            return try await recordAll(claim, as: .notSent, pushFailure: error.message, record: record)
        }
        if let expiration = request.expiration, expiration <= now {
            return try await recordAll(claim, as: .failed(reason: "Expired"), pushFailure: nil, record: record)
        }
        let data: PushData
        do {
            data = try PushData(request.data)
        } catch {
            return try await recordAll(claim, as: .notSent, pushFailure: "invalid payload: \(error)", record: record)
        }
        let plan = await BatchPlan.make(
            claim, request: request, data: data, app: app, providers: providers, now: now, logger: logger)
        if let failure = plan.pushFailure { gate.stop(.pushFailed(failure)) }
        var window = SendWindow(
            chunks: chunks(claim.recorded.unrecorded, claim: claim, request: request, plan: plan), size: self.window)
        var summary = Summary()
        var recordingFailure: (any Error)?
        await withTaskGroup(of: Progress.self) { group in
            func dispatch() {
                // Checked per chunk, so nothing new leaves once the gate closes or shutdown begins.
                while recordingFailure == nil, gate.isOpen, !Task.isShuttingDownGracefully,
                    let chunk = window.nextChunk()
                {
                    group.addTask {
                        .answered(
                            await self.deliver(chunk, plan: plan, claim: claim, request: request, gate: gate, now: now))
                    }
                }
            }
            func recordIfDue() {
                let stopped = recordingFailure != nil || !gate.isOpen || Task.isShuttingDownGracefully
                guard recordingFailure == nil, let part = window.partToRecord(dispatchStopped: stopped) else { return }
                let pushFailure = gate.pushFailure
                group.addTask {
                    do {
                        return .recorded(.success(try await record(part, pushFailure)))
                    } catch {
                        return .recorded(.failure(error))
                    }
                }
            }
            dispatch()
            recordIfDue()
            for await progress in group {
                switch progress {
                case .answered(let delivered):
                    window.answered(delivered.map { ($0.0, $0.1.outcome) })
                    summary.retries += delivered.reduce(0) { $0 + $1.1.retries }
                case .recorded(.success(let recorded)):
                    window.recorded()
                    if let recorded { summary.add(recorded.delivered) }
                case .recorded(.failure(let error)):
                    window.recorded()
                    recordingFailure = error
                }
                dispatch()
                recordIfDue()
            }
        }
        if let recordingFailure { throw recordingFailure }
        summary.pushFailure = gate.pushFailure
        return summary
    }

    /// The targets to send in chunks: devices of one request each in chunks of `chunkSize`, each vendor
    /// lane's devices in chunks of their own as large as the vendor's lists and the window allow, so that a
    /// vendor gets one request per chunk, not one per 50 devices.
    func chunks(_ pending: [Int], claim: BatchClaim, request: PushRequest, plan: BatchPlan) -> [[Int]] {
        var single: [Int] = []
        var lanes: [VendorLane.Key: (limit: Int, indices: [Int])] = [:]
        var order: [VendorLane.Key] = []
        for index in pending {
            let target = claim.targets[index]
            if !target.token.isEmpty, case .vendor(let vendor) = DeliveryRoute(target),
                case .success(let lane) = plan.vendorLane(vendor, target.profile ?? request.deviceProfile)
            {
                if lanes[lane.key] == nil {
                    order.append(lane.key)
                    lanes[lane.key] = (min(window, max(1, lane.client.batchLimit)), [])
                }
                lanes[lane.key]!.indices.append(index)
            } else {
                single.append(index)
            }
        }
        func sliced(_ indices: [Int], _ size: Int) -> [[Int]] {
            stride(from: 0, to: indices.count, by: size).map { Array(indices[$0..<min($0 + size, indices.count)]) }
        }
        return sliced(single, chunkSize) + order.flatMap { sliced(lanes[$0]!.indices, lanes[$0]!.limit) }
    }

    /// What a task of `send` finished.
    private enum Progress: Sendable {
        case answered([(Int, Delivered)])
        case recorded(Result<PushBatches.RecordedPart?, any Error>)
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
        guard var content = plan.data.content(for: platform) else { return .failed(reason: "NoContentForPlatform") }
        // Every payload names its push (SPEC §4.4), so that an open of a channel push is attributed too.
        content["_nid"] = .string(plan.pushId)
        // The LeanCloud SDK picks the callback the app subscribed for the channel by `_channel` (SPEC §12.4).
        if let channel = plan.channelName, content["_channel"] == nil { content["_channel"] = .string(channel) }
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
            // A vendor's token stays with its installation, which is only set invalid (SPEC §12.3).
            if case .vendor = reason { return .disabled(reason: reason.description) }
            return .invalidToken(reason: reason.description, since: since ?? now)
        case .retryable(let reason, _):
            return .failed(reason: reason.description)
        case .expiredProviderToken(let reason), .permanent(let reason):
            if reason.failsWholePush { gate?.stop(.pushFailed("\(reason.providerName) refused the push: \(reason)")) }
            return .failed(reason: reason.description)
        }
    }
}
