import Foundation
import PushCore

/// An event to append: its type and JSON data.
public struct NewEvent: Sendable {
    public let type: String
    /// What the inline projections are handed (`ProjectedEvent.data`): the stored data, except for a page of
    /// targets (below).
    public let data: JSON
    /// The data as stored, when it is written apart from `data`; nil: `data` encoded.
    let storedText: String?

    public init(_ type: String, _ data: JSON) {
        self.type = type
        self.data = data
        self.storedText = nil
    }

    /// A push stream's event: the type is its kind's, the data its payload's. A page of targets
    /// (`PushTargeted`), the fan-out's largest event, is stored whole, its text written straight from the
    /// targets (`encodedText`); the inline projections are handed the page with its targets counted
    /// (`countedJSON`), as a rebuild hands them every page, since none reads more than their number.
    init(_ event: PushLogEvent) {
        self.type = event.type
        if case .targeted(let page) = event {
            self.data = page.countedJSON
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
