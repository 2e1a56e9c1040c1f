import Curl
import Foundation
import PushCore

/// A vendor's message for one push, built once for a batch from its content and sent to many devices:
/// the vendor's request without its tokens (HMS's `message`, Xiaomi's form fields, OPPO's notification…).
public struct VendorMessage: Sendable, Hashable {
    public let body: JSON
    public let silent: Bool

    public init(body: JSON, silent: Bool) {
        self.body = body
        self.silent = silent
    }
}

/// One Android vendor's push API for one app profile (SPEC §12.3), the interface every vendor folder
/// implements: how a push's content becomes the vendor's message (checked against its limits), which tokens
/// can be put where the vendor wants them, how many devices one request carries, and one attempt of a
/// request, each device's answer classified. Authentication (a token exchange or a signature per request) is
/// the client's own; an access token refused by the vendor is answered `expiredProviderToken`, after the
/// client has dropped it, so the next attempt fetches another.
public protocol VendorClient: AnyObject, Sendable {
    var vendor: AndroidVendor { get }
    /// Devices one request may carry: 1 for a vendor that takes one per request.
    var batchLimit: Int { get }
    /// The vendor's message for the push's content, or why none of its devices can get it.
    /// - Parameter timeToLive: seconds until the push expires, nil when it does not.
    func message(for content: VendorContent, timeToLive: Int64?) -> Result<VendorMessage, VendorRefusal>
    /// Whether `token` can go where this vendor takes tokens (a comma-separated form field cannot hold a comma).
    func accepts(token: String) -> Bool
    /// One request of `message` to `tokens` (at most `batchLimit`): an outcome per token, in order.
    func attempt(_ message: VendorMessage, to tokens: [String]) async -> [DeliveryOutcome]
    var httpStatistics: CurlStatistics { get }
    func shutdown() async
}

extension VendorClient {
    public func accepts(token: String) -> Bool { VendorToken.isPrintable(token) }

    /// Sends `message` to `tokens` in requests of at most `batchLimit`, and again, as a group, to the devices
    /// whose answer is worth another attempt (backoff as `RetryStateMachine` says; a refused access token is
    /// fetched anew once): a vendor that takes a list gets one request per group, not one per device.
    public func send(
        _ message: VendorMessage, to tokens: [String], policy: RetryPolicy = RetryPolicy(),
        random: @Sendable () -> Double = { Double.random(in: 0..<1) },
        sleep: DeliverySleep = { try await Task.sleep(for: $0) }
    ) async -> [DeliveryResult] {
        var results = [DeliveryResult?](repeating: nil, count: tokens.count)
        var start = 0
        while start < tokens.count {
            let end = min(start + max(1, batchLimit), tokens.count)
            let group = Array(start..<end)
            for (index, result) in await sendGroup(
                message, group.map { tokens[$0] }, policy: policy, random: random, sleep: sleep
            ).enumerated() {
                results[group[index]] = result
            }
            start = end
        }
        return results.map { $0! }
    }

    private func sendGroup(
        _ message: VendorMessage, _ tokens: [String], policy: RetryPolicy, random: @Sendable () -> Double,
        sleep: DeliverySleep
    ) async -> [DeliveryResult] {
        var machine = RetryStateMachine(policy: policy)
        var results = [DeliveryResult?](repeating: nil, count: tokens.count)
        var pending = Array(tokens.indices)
        while !pending.isEmpty {
            let outcomes = await attempt(message, to: pending.map { tokens[$0] })
            var again: [Int] = []
            var credentials = false
            var retryAfter: Duration?
            for (index, outcome) in zip(pending, outcomes) {
                switch outcome {
                case .success, .invalidToken, .permanent:
                    results[index] = DeliveryResult(outcome: outcome, attempts: machine.attempts + 1)
                case .retryable(_, let after):
                    again.append(index)
                    if let after { retryAfter = max(retryAfter ?? .zero, after) }
                    results[index] = DeliveryResult(outcome: outcome, attempts: machine.attempts + 1)
                case .expiredProviderToken:
                    again.append(index)
                    credentials = true
                    results[index] = DeliveryResult(outcome: outcome, attempts: machine.attempts + 1)
                }
            }
            guard !again.isEmpty else { break }
            let action =
                credentials ? machine.credentialsRejected() : machine.failed(retryAfter: retryAfter, random: random())
            guard case .retry(let delay) = action else { break }
            if delay > .zero {
                do { try await sleep(delay) } catch { break }
            }
            pending = again
        }
        return results.map { $0! }
    }
}

/// Checks of vendor tokens as they travel.
enum VendorToken {
    /// Printable ASCII without spaces: every vendor's tokens are, and a JSON string or a form field takes them.
    static func isPrintable(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= 1024 && token.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// For a comma-separated list in a form field: printable, and no comma, which would split it in two.
    static func fitsCommaList(_ token: String) -> Bool { isPrintable(token) && !token.contains(",") }
}
