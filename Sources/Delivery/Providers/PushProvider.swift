import Curl
import Foundation
import PushCore

/// One push provider for one app profile: the interface APNs, FCM, WNS and every Android vendor implement,
/// and the only one the fan-out sends through (`BatchSender`). The own channel sends nothing in a batch (its
/// message is stored with the batch's record, `BatchSender.viaChannel`), so it has no provider.
///
/// A provider authenticates on its own, inside `attempt(all:)`: a cached access token from a token exchange
/// (FCM, WNS, HMS, Honor, OPPO, vivo; `OAuthAccessTokenProvider` and its pure state machine), a signed JWT
/// (APNs), a key or a signature per request (Xiaomi, Meizu). It classifies every device's answer into a
/// `DeliveryOutcome`; one that refused the access token is `expiredProviderToken` after the provider has
/// dropped it, so the next attempt fetches another. What a request carries is the provider's: a notification
/// for one device (`OneDeviceRequest`), or a vendor's message with a list of up to `batchLimit` tokens.
/// Backoff and the repeated attempts are not the provider's: `deliver` is the one retry loop for all of them.
public protocol PushProvider: AnyObject, Sendable {
    associatedtype Request: Sendable
    /// The `provider` label of metrics and logs (`apns`, `fcm`, `wns`, `HMS`…).
    var name: String { get }
    /// Devices one request may carry.
    var batchLimit: Int { get }
    /// Devices `request` carries: as many outcomes as `attempt(all:)` answers for it.
    static func devices(in request: Request) -> Int
    /// `request` for only its devices at `positions` (ascending): what a retry sends again.
    static func request(_ request: Request, narrowedTo positions: [Int]) -> Request
    /// One attempt of every request, together (one submission to libcurl where the provider can): the
    /// outcome of each request's devices, request after request, in order.
    func attempt(all requests: [Request]) async -> [DeliveryOutcome]
    var httpStatistics: TransportStatistics { get }
    func shutdown() async
}

/// A request that carries one device: APNs', FCM's and WNS's notifications.
public protocol OneDeviceRequest: Sendable {}

extension PushProvider where Request: OneDeviceRequest {
    public var batchLimit: Int { 1 }
    public static func devices(in request: Request) -> Int { 1 }
    public static func request(_ request: Request, narrowedTo positions: [Int]) -> Request { request }

    /// One notification until its answer is final: `deliver` of one.
    public func send(
        _ request: Request, policy: RetryPolicy = RetryPolicy(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        clock: ServiceClock = .system
    ) async -> DeliveryResult {
        await deliver([request], policy: policy, random: random, clock: clock)[0].result
    }
}

/// One device's final result and how long after `deliver` began it was known (the request-duration metric).
public struct ProviderAnswer: Sendable, Hashable {
    public var result: DeliveryResult
    public var elapsed: Duration
}

extension DeliveryOutcome {
    /// Whether the answer is worth another attempt (429, 5xx, connection trouble, a refused access token).
    var isWorthRetrying: Bool {
        switch self {
        case .success, .invalidToken, .permanent: false
        case .retryable, .expiredProviderToken: true
        }
    }
}

extension PushProvider {
    /// Delivers `requests`: their first attempts together (`attempt(all:)`), then, for each request on its
    /// own and concurrently, its devices whose answer is worth another attempt again in one narrowed request,
    /// with backoff as `RetryStateMachine` says (at least a Retry-After; a refused access token once, at
    /// once). A vendor that takes a list so gets one request per retry of a list, not one per device.
    /// The answers of the requests' devices, in order. Backoffs wait on `clock`; `elapsed` is measured on
    /// the monotonic clock, as the real time a provider took is what the request-duration metric reports.
    public func deliver(
        _ requests: [Request], policy: RetryPolicy = RetryPolicy(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        clock: ServiceClock = .system
    ) async -> [ProviderAnswer] {
        let started = ContinuousClock.now
        let firsts = await attempt(all: requests)
        let answered = ContinuousClock.now - started
        var answers = firsts.map { ProviderAnswer(result: DeliveryResult(outcome: $0, attempts: 1), elapsed: answered) }
        await withTaskGroup(of: (Int, [ProviderAnswer]).self) { group in
            var start = 0
            for request in requests {
                let count = Self.devices(in: request)
                // Most requests need no retry: their answers are not copied (one device's each, in a chunk).
                if firsts[start..<start + count].contains(where: \.isWorthRetrying) {
                    let outcomes = Array(firsts[start..<start + count])
                    group.addTask { [start] in
                        let retried = await self.retry(
                            request, after: outcomes, policy: policy, random: random, clock: clock, started: started)
                        return (start, retried)
                    }
                }
                start += count
            }
            for await (start, retried) in group {
                answers.replaceSubrange(start..<start + retried.count, with: retried)
            }
        }
        return answers
    }

    /// One request until every device's answer is final, its first answers given.
    private func retry(
        _ request: Request, after firsts: [DeliveryOutcome], policy: RetryPolicy, random: @Sendable () -> Double,
        clock: ServiceClock, started: ContinuousClock.Instant
    ) async -> [ProviderAnswer] {
        var machine = RetryStateMachine(policy: policy)
        let answered = ContinuousClock.now - started
        var answers = firsts.map { ProviderAnswer(result: DeliveryResult(outcome: $0, attempts: 1), elapsed: answered) }
        var pending = firsts.indices.filter { firsts[$0].isWorthRetrying }
        while !pending.isEmpty {
            let last = pending.map { answers[$0].result.outcome }
            let action: RetryAction
            if last.contains(where: { if case .expiredProviderToken = $0 { true } else { false } }) {
                action = machine.credentialsRejected()
            } else {
                let retryAfter = last.compactMap { outcome -> Duration? in
                    if case .retryable(_, let after) = outcome { after } else { nil }
                }.max()
                action = machine.failed(retryAfter: retryAfter, random: random())
            }
            guard case .retry(let delay) = action else { break }
            if delay > .zero {
                // Cancelled while waiting: the last answers are the final ones.
                do { try await clock.sleep(for: delay) } catch { break }
            }
            let again = pending.count == firsts.count ? request : Self.request(request, narrowedTo: pending)
            let outcomes = await attempt(all: [again])
            let elapsed = ContinuousClock.now - started
            for (position, outcome) in zip(pending, outcomes) {
                answers[position] = ProviderAnswer(
                    result: DeliveryResult(outcome: outcome, attempts: machine.attempts + 1), elapsed: elapsed)
            }
            pending = pending.filter { answers[$0].result.outcome.isWorthRetrying }
        }
        return answers
    }
}
