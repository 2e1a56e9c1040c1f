import Foundation
import PushCore

/// Why an installation was or was not targeted by a push, and what became of it (`pushledger explain`, SPEC §9).
public struct Explanation: Sendable {
    /// One event of the installation's stream, with its key fields.
    public struct HistoryEntry: Sendable {
        public let at: Date
        public let type: String
        public let summary: String
    }

    /// One targeting condition evaluated on the installation as it stood at the push's instant.
    public struct Condition: Sendable {
        /// `exists`, `valid`, `updatedAt`, `deviceType`, `where.<key>`, `device_ids`.
        public let name: String
        /// What targeting requires, e.g. `{"$in":["news"]}` or `within 90 days`.
        public let requirement: String
        /// The installation's value.
        public let value: String
        /// nil when it could not be evaluated (the installation did not exist then).
        public let met: Bool?
    }

    /// What the push's log says about this installation.
    public enum Delivery: Sendable, Equatable {
        case notTargeted(note: String?)
        case pending(batch: Int)
        case delivered(batch: Int, at: Date)
        /// Queued on the own device channel; the device has not acknowledged it yet.
        case waitingForDevice(batch: Int)
        /// The device acknowledged the own channel's message.
        case acknowledged(batch: Int, at: Date)
        case failed(batch: Int, reason: String, at: Date)
        case cancelled(batch: Int)
    }

    public let appId: String
    public let pushId: String
    public let objectId: String
    public let requestedAt: Date
    /// The instant the conditions are evaluated at: when the push was targeted.
    public let instant: Date
    /// Where `instant` comes from, e.g. `PushTargeted batch 0`.
    public let instantSource: String
    /// The push's `where` (channels folded in), or `{"device_type","device_ids"}` for `/push/devices`.
    public let audience: JSON
    public let history: [HistoryEntry]
    /// Events of the installation after the instant (it may since have been deleted or expired).
    public let laterEvents: [HistoryEntry]
    public let conditions: [Condition]
    public let delivery: Delivery
    /// The service the installation was sent through (`APNs`, `HMS`, `the own channel`…), nil when not targeted.
    public let route: String?

    /// The first condition not met: what excluded the installation.
    public var excludedBy: Condition? { conditions.first { $0.met == false } }
    public var matched: Bool { excludedBy == nil && conditions.allSatisfy { $0.met == true } }
}
