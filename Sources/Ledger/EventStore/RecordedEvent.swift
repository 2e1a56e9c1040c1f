import Foundation
import PushCore

/// An event to append: its kind and payload, and the data stored for it.
public struct NewEvent: Sendable {
    /// What the inline projections are handed (`ProjectedEvent.event`).
    public let event: LedgerEvent
    public var type: String { event.type }
    /// The data, encoded when written, unless `storedText` is.
    let data: JSON
    /// The data as stored, when it is written apart from `data`; nil: `data` encoded.
    let storedText: String?

    /// An event of a family other than the push streams', which only `PushLifecycleInterpreter` appends.
    public init(_ event: InstallationLogEvent) { self.init(stored: .installation(event)) }
    public init(_ event: PresenceLogEvent) { self.init(stored: .presence(event)) }
    public init(_ event: ObjectLogEvent) { self.init(stored: .object(event)) }
    public init(_ event: AppLogEvent) { self.init(stored: .app(event)) }
    public init(_ event: UsageLogEvent) { self.init(stored: .usage(event)) }

    private init(stored event: LedgerEvent) {
        self.event = event
        self.data = event.json
        self.storedText = nil
    }

    /// A push stream's event: the type is its kind's, the data its payload's. A page of targets
    /// (`PushTargeted`), the fan-out's largest event, is stored whole, its text written straight from the
    /// targets (`encodedText`); the inline projections read only their number (`PushTargeted.devices`).
    init(_ event: PushLogEvent) {
        self.event = .push(event)
        if case .targeted(let page) = event {
            self.data = [:]
            self.storedText = page.encodedText
        } else {
            self.data = event.payload.json
            self.storedText = nil
        }
    }
}

/// An event as stored in the log.
public struct RecordedEvent: Sendable {
    public let position: Int64
    public let transactionId: UInt64
    public let appId: String
    public let stream: String
    public let version: Int
    public let type: String
    public let data: JSON
    public let metadata: JSON
    public let recordedAt: Date

    public var checkpoint: Checkpoint { Checkpoint(transactionId: transactionId, position: position) }

    /// Its kind and payload, for a reader that shows or explains it (projections are handed theirs decoded).
    public func decoded(targets: TargetReading = .whole) throws -> LedgerEvent {
        try LedgerEvent(type: type, data: data, targets: targets)
    }
}

/// A place in the global order: (transaction id, position). Everything at or before it has been read.
public struct Checkpoint: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var transactionId: UInt64
    public var position: Int64

    public init(transactionId: UInt64, position: Int64) {
        self.transactionId = transactionId
        self.position = position
    }

    public static let start = Checkpoint(transactionId: 0, position: 0)

    public static func < (a: Checkpoint, b: Checkpoint) -> Bool {
        (a.transactionId, a.position) < (b.transactionId, b.position)
    }

    public var description: String { "\(transactionId)/\(position)" }
}
