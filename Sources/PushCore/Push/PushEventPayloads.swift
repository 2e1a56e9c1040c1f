import Foundation

/// The data of a push stream's events (`PushEvent`), one type per event kind, shared by the writers and
/// every projection, so that a key is spelt once and a missing field is a decoding error, not a silent
/// `?? 0`. Fields added in later versions are optional, so the log's older events still read.
public protocol PushEventPayload: Codable, Sendable {
    /// The push (`push:<objectId>` is its stream).
    var objectId: String { get }
    /// When it happened (LeanCloud date text).
    var at: String { get }
    /// The event data.
    var json: JSON { get }
    /// Reads event data written by `json`.
    init(json: JSON) throws
}

extension PushEventPayload {
    public var json: JSON {
        // Encoding a struct of strings, integers and JSON values cannot fail.
        let data = try! JSONEncoder().encode(self)
        return (try? JSON.parse(Array(data))) ?? .null
    }

    /// Reads event data written by `json`.
    public init(json: JSON) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(json.encoded().utf8))
    }
}

/// Event data that does not have the fields its kind requires.
public struct MalformedPayload: Error, CustomStringConvertible {
    public let event: String
    public var description: String { "malformed \(event) event data" }
}

/// `PushRequested`: the request as stored (`PushRequest.json`) and the record's first status.
public struct PushRequested: PushEventPayload, Equatable {
    public var objectId: String
    public var request: JSON
    public var at: String
    public var status: String

    public init(objectId: String, request: JSON, at: String, status: String) {
        self.objectId = objectId
        self.request = request
        self.at = at
        self.status = status
    }
}

/// `PushTargeted`: one page of targets, which becomes batch `batch`.
public struct PushTargeted: PushEventPayload, Equatable {
    public var objectId: String
    public var batch: Int64
    /// The page's targets; empty on a page read counted (`init(counting:)`), which keeps only their number.
    public private(set) var targets: [PushTarget]
    /// How many devices the page targets.
    public private(set) var devices: Int64
    public var at: String

    public init(objectId: String, batch: Int64, targets: [PushTarget], at: String) {
        self.objectId = objectId
        self.batch = batch
        self.targets = targets
        self.devices = Int64(targets.count)
        self.at = at
    }

    /// A page read for its number of targets only (`counted`), as every projection reads it.
    public init(counting json: JSON) throws {
        let (objectId, devices) = try Self.counted(json)
        guard let batch = json["batch"]?.intValue, let at = json["at"]?.stringValue else {
            throw MalformedPayload(event: PushEvent.targeted)
        }
        self.init(objectId: objectId, batch: batch, targets: [], at: at)
        self.devices = devices
    }

    /// Read by hand, like `json` is written: every projection reads every page, and `JSONDecoder` takes many
    /// times as long over a page's targets (`scripts/bench-json` measures both).
    public init(json: JSON) throws {
        guard let objectId = json["objectId"]?.stringValue, let batch = json["batch"]?.intValue,
            let at = json["at"]?.stringValue, let targets = json["targets"]?.arrayValue
        else { throw MalformedPayload(event: PushEvent.targeted) }
        var read: [PushTarget] = []
        read.reserveCapacity(targets.count)
        for target in targets {
            guard let parsed = PushTarget(json: target) else { throw MalformedPayload(event: PushEvent.targeted) }
            read.append(parsed)
        }
        self.init(objectId: objectId, batch: batch, targets: read, at: at)
    }

    /// The push and how many devices a `PushTargeted` event's data targets, without reading each target:
    /// three projections count every page of every push. Data that carries `targetCount` instead of
    /// `targets` (what a rebuild's log scan sends: the targets are most of the log's bytes, and nothing it
    /// rebuilds reads more than their number) is counted by it.
    public static func counted(_ json: JSON) throws -> (objectId: String, devices: Int64) {
        guard let objectId = json["objectId"]?.stringValue else { throw MalformedPayload(event: PushEvent.targeted) }
        if let targets = json["targets"] {
            guard let list = targets.arrayValue else { throw MalformedPayload(event: PushEvent.targeted) }
            return (objectId, Int64(list.count))
        }
        guard let count = json[targetCountKey]?.intValue, count >= 0 else {
            throw MalformedPayload(event: PushEvent.targeted)
        }
        return (objectId, count)
    }

    /// The key that stands for the targets in counted data (`counted`).
    public static let targetCountKey = "targetCount"

    /// Built by hand: this is the fan-out's largest event (a page of targets), written once per page.
    public var json: JSON {
        [
            "objectId": .string(objectId), "batch": .int(batch), "targets": .array(targets.map(\.json)),
            "at": .string(at),
        ]
    }
}

/// `PushTargetingCompleted`: the audience is exhausted.
public struct PushTargetingCompleted: PushEventPayload, Equatable {
    public var objectId: String
    public var devices: Int64
    public var batches: Int64
    public var at: String

    public init(objectId: String, devices: Int64, batches: Int64, at: String) {
        self.objectId = objectId
        self.devices = devices
        self.batches = batches
        self.at = at
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
    /// Absent from events written before Windows support, and when no Windows device succeeded (so batches
    /// without Windows targets are recorded exactly as before).
    public var windowsSuccesses: Int64?
    public var errors: Int64
    public var invalidTokens: Int64
    /// Error counts by reason.
    public var reasons: [String: Int64]
    /// The reason per failed target (installation objectId, or the token when there is none).
    public var failures: [String: String]
    /// Targets not sent and queued again as a new batch (a sender shutting down).
    public var handedBack: Int64?
    /// Targets handed to the own device channel: neither successes nor errors yet, until the device acks
    /// (`PushChannelAcked`) or the message expires or is dropped.
    public var queued: Int64?
    /// Android successes by the record's vendor counter (`hmsSuccesses`, `fcmSuccesses`…, SPEC §12.3); absent
    /// when there are none, so batches without Android successes are recorded exactly as before.
    public var vendorSuccesses: [String: Int64]?

    public init(
        objectId: String, batch: Int64, at: String, successes: Int64, iosSuccesses: Int64, androidSuccesses: Int64,
        windowsSuccesses: Int64 = 0, errors: Int64, invalidTokens: Int64, reasons: [String: Int64],
        failures: [String: String], handedBack: Int64? = nil, queued: Int64? = nil,
        vendorSuccesses: [String: Int64] = [:]
    ) {
        self.objectId = objectId
        self.batch = batch
        self.at = at
        self.successes = successes
        self.iosSuccesses = iosSuccesses
        self.androidSuccesses = androidSuccesses
        self.windowsSuccesses = windowsSuccesses == 0 ? nil : windowsSuccesses
        self.errors = errors
        self.invalidTokens = invalidTokens
        self.reasons = reasons
        self.failures = failures
        self.handedBack = handedBack
        self.queued = queued
        self.vendorSuccesses = vendorSuccesses.isEmpty ? nil : vendorSuccesses
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

/// `PushQuotaReached`: the daily quota stopped targeting; what was targeted is still sent.
public struct PushQuotaReached: PushEventPayload, Equatable {
    public var objectId: String
    public var at: String
    public var quota: Int64
    public var devices: Int64
    public var status: String

    public init(objectId: String, at: String, quota: Int64, devices: Int64) {
        self.objectId = objectId
        self.at = at
        self.quota = quota
        self.devices = devices
        self.status = PushEvent.Status.quotaReached(quota)
    }
}

/// `PushCancelled`: cancelled by its owner while it still had work.
public struct PushCancelled: PushEventPayload, Equatable {
    public var objectId: String
    public var at: String
    /// The job's state when it was cancelled (absent in events of older versions).
    public var previousState: String?
    /// Batches cancelled before any sender took them.
    public var cancelledBatches: Int64?

    public init(objectId: String, at: String, previousState: String? = nil, cancelledBatches: Int64? = nil) {
        self.objectId = objectId
        self.at = at
        self.previousState = previousState
        self.cancelledBatches = cancelledBatches
    }
}

/// The events that say only when something happened to a push: `PushCompleted`, `PushExpired`,
/// `NotificationDeleted`, `NotificationPurged`.
public struct PushMilestone: PushEventPayload, Equatable {
    public var objectId: String
    public var at: String

    public init(objectId: String, at: String) {
        self.objectId = objectId
        self.at = at
    }
}
