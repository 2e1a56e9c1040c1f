import Foundation

/// The data of the push events the fan-out writes, as types shared by the writers and every projection,
/// so that a key is spelt once and a missing count is a decoding error, not a silent `?? 0`.
public protocol PushEventPayload: Codable, Sendable {}

extension PushEventPayload {
    /// The event data.
    public var json: JSON {
        // Encoding a struct of strings and integers cannot fail.
        let data = try! JSONEncoder().encode(self)
        return (try? JSON.parse(Array(data))) ?? .null
    }

    /// Reads event data written by `json` (or by earlier versions, which used the same keys).
    public init(json: JSON) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(json.encoded().utf8))
    }
}

/// `PushBatchDelivered`: what one batch came to.
public struct BatchDelivered: PushEventPayload, Equatable {
    public var objectId: String
    public var batch: Int64
    public var at: String
    public var successes: Int64
    public var iosSuccesses: Int64
    public var androidSuccesses: Int64
    public var errors: Int64
    public var invalidTokens: Int64
    /// Error counts by reason.
    public var reasons: [String: Int64]
    /// The reason per failed target (installation objectId, or the token when there is none).
    public var failures: [String: String]
    /// Targets not sent and queued again as a new batch (a sender shutting down).
    public var handedBack: Int64?

    public init(
        objectId: String, batch: Int64, at: String, successes: Int64, iosSuccesses: Int64, androidSuccesses: Int64,
        errors: Int64, invalidTokens: Int64, reasons: [String: Int64], failures: [String: String],
        handedBack: Int64? = nil
    ) {
        self.objectId = objectId
        self.batch = batch
        self.at = at
        self.successes = successes
        self.iosSuccesses = iosSuccesses
        self.androidSuccesses = androidSuccesses
        self.errors = errors
        self.invalidTokens = invalidTokens
        self.reasons = reasons
        self.failures = failures
        self.handedBack = handedBack
    }
}

/// `PushFailed`: the push ended without being (fully) sent; `status` is what its record says.
public struct PushFailedPayload: PushEventPayload, Equatable {
    public var objectId: String
    public var at: String
    public var status: String
    /// The cause, as it came (set by the fan-out; absent on the dev-profile refusal of older versions).
    public var reason: String?
    /// `targeting` or `delivery`.
    public var stage: String?
    /// Targets found, for the dev-profile refusal.
    public var devices: Int64?

    public init(
        objectId: String, at: String, status: String, reason: String? = nil, stage: String? = nil, devices: Int64? = nil
    ) {
        self.objectId = objectId
        self.at = at
        self.status = status
        self.reason = reason
        self.stage = stage
        self.devices = devices
    }
}
