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

/// One request to a vendor: the message of the push and the tokens it goes to (at most `batchLimit`).
public struct VendorRequest: Sendable {
    public let message: VendorMessage
    public let tokens: [String]

    public init(_ message: VendorMessage, to tokens: [String]) {
        self.message = message
        self.tokens = tokens
    }
}

/// One Android vendor's push API for one app profile (SPEC §12.3), the part of `PushProvider` every vendor
/// folder implements: how a push's content becomes the vendor's message (checked against its limits), which
/// tokens can be put where the vendor wants them, how many devices one request carries, and one request,
/// each device's answer classified.
public protocol VendorClient: PushProvider where Request == VendorRequest {
    var vendor: AndroidVendor { get }
    /// The vendor's message for the push's content, or why none of its devices can get it.
    /// - Parameter timeToLive: seconds until the push expires, nil when it does not.
    func message(for content: VendorContent, timeToLive: Int64?) -> Result<VendorMessage, VendorRefusal>
    /// Whether `token` can go where this vendor takes tokens (a comma-separated form field cannot hold a comma).
    func accepts(token: String) -> Bool
    /// One request of `message` to `tokens` (at most `batchLimit`): an outcome per token, in order.
    func attempt(_ message: VendorMessage, to tokens: [String]) async -> [DeliveryOutcome]
}

extension VendorClient {
    public var name: String { vendor.rawValue }

    public func accepts(token: String) -> Bool { VendorToken.isPrintable(token) }

    public static func devices(in request: VendorRequest) -> Int { request.tokens.count }

    public static func request(_ request: VendorRequest, narrowedTo positions: [Int]) -> VendorRequest {
        VendorRequest(request.message, to: positions.map { request.tokens[$0] })
    }

    /// Each request is an HTTP request of its own (with its own signature or form fields): they go
    /// concurrently, their outcomes in the order given.
    public func attempt(all requests: [VendorRequest]) async -> [DeliveryOutcome] {
        if requests.count == 1 { return await attempt(requests[0].message, to: requests[0].tokens) }
        return await withTaskGroup(of: (Int, [DeliveryOutcome]).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { (index, await self.attempt(request.message, to: request.tokens)) }
            }
            var answered = [[DeliveryOutcome]](repeating: [], count: requests.count)
            for await (index, outcomes) in group { answered[index] = outcomes }
            return answered.flatMap { $0 }
        }
    }

    /// `message` to `tokens` cut into the vendor's lists.
    func requests(_ message: VendorMessage, to tokens: [String]) -> [VendorRequest] {
        let size = max(1, batchLimit)
        return stride(from: 0, to: tokens.count, by: size).map {
            VendorRequest(message, to: Array(tokens[$0..<min($0 + size, tokens.count)]))
        }
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
