/// An event of the log as its readers see it: decoded once, where it is read or handed to the projections, into
/// its family's kind and that kind's payload, so readers switch on cases instead of type strings and a missing
/// field is a decoding error. Every type the log holds belongs to one family; the stored type is derived from
/// the case, so a kind cannot be written with another kind's data.
public enum LedgerEvent: Sendable, Equatable {
    case push(PushLogEvent)
    case installation(InstallationLogEvent)
    case presence(PresenceLogEvent)
    case object(ObjectLogEvent)
    case app(AppLogEvent)
    case usage(UsageLogEvent)

    /// Reads a stored event; a page of targets whole or counted (`TargetReading`).
    public init(type: String, data: JSON, targets: TargetReading = .whole) throws {
        if let push = try PushLogEvent(type: type, json: data, targets: targets) {
            self = .push(push)
        } else if let installation = try InstallationLogEvent(type: type, json: data) {
            self = .installation(installation)
        } else if let presence = try PresenceLogEvent(type: type, json: data) {
            self = .presence(presence)
        } else if let object = try ObjectLogEvent(type: type, json: data) {
            self = .object(object)
        } else if let app = try AppLogEvent(type: type, json: data) {
            self = .app(app)
        } else if let usage = try UsageLogEvent(type: type, json: data) {
            self = .usage(usage)
        } else {
            throw UnknownEventType(type: type)
        }
    }

    /// The type the log stores it under.
    public var type: String {
        switch self {
        case .push(let event): event.type
        case .installation(let event): event.type
        case .presence(let event): event.type
        case .object(let event): event.type
        case .app(let event): event.type
        case .usage(let event): event.type
        }
    }

    /// The stored data (a page of targets as its payload encodes it).
    public var json: JSON {
        switch self {
        case .push(let event): event.payload.json
        case .installation(let event): event.json
        case .presence(let event): event.json
        case .object(let event): event.json
        case .app(let event): event.json
        case .usage(let event): event.json
        }
    }
}

/// A stored type no family of this version reads: a log written by a newer binary, or a damaged one.
public struct UnknownEventType: Error, CustomStringConvertible {
    public let type: String
    public var description: String { "unknown event type \(type)" }
}
