/// An event of the log as its readers see it: decoded once, where it is read or handed to the projections, into
/// its family's kind and that kind's payload, so readers switch on cases instead of type strings and a missing
/// field is a decoding error. Push and installation streams are typed (`PushLogEvent`, `InstallationLogEvent`);
/// the families whose readers fold their data as maps (apps, objects and users, presence, usage) stay `other`.
public enum LedgerEvent: Sendable, Equatable {
    case push(PushLogEvent)
    case installation(InstallationLogEvent)
    case other(type: String, data: JSON)

    /// Reads a stored event; a page of targets whole or counted (`TargetReading`).
    public init(type: String, data: JSON, targets: TargetReading = .whole) throws {
        if let push = try PushLogEvent(type: type, json: data, targets: targets) {
            self = .push(push)
        } else if let installation = try InstallationLogEvent(type: type, json: data) {
            self = .installation(installation)
        } else {
            self = .other(type: type, data: data)
        }
    }

    /// Whether events of `type` are read into a typed family (and so must be written as one).
    public static func isTyped(_ type: String) -> Bool {
        PushEvent.all.contains(type) || InstallationEvent.all.contains(type)
    }

    /// The type the log stores it under.
    public var type: String {
        switch self {
        case .push(let event): event.type
        case .installation(let event): event.type
        case .other(let type, _): type
        }
    }
}
