/// A presence stream's event (`PresenceEvent`): a device's own-channel session starting or ending.
public enum PresenceLogEvent: Sendable, Equatable {
    case connected(PresenceChanged)
    case disconnected(PresenceChanged)

    /// The type the log stores it under (`PresenceEvent`'s names).
    public var type: String {
        switch self {
        case .connected: PresenceEvent.connected
        case .disconnected: PresenceEvent.disconnected
        }
    }

    /// What changed.
    public var change: PresenceChanged {
        switch self {
        case .connected(let p), .disconnected(let p): p
        }
    }

    /// The stored data.
    public var json: JSON { change.json }

    /// Reads a stored event of a presence stream; nil for a type that is not a presence event.
    public init?(type: String, json: JSON) throws {
        let read = EventFields(json, event: type)
        switch type {
        case PresenceEvent.connected: self = .connected(try PresenceChanged(read))
        case PresenceEvent.disconnected: self = .disconnected(try PresenceChanged(read))
        default: return nil
        }
    }
}

/// `DeviceConnected` / `DeviceDisconnected`: the device's installation, the session (one connection) and when;
/// a disconnect may say why.
public struct PresenceChanged: Sendable, Equatable {
    public var objectId: String
    public var installationId: String
    public var session: String
    public var at: String
    public var reason: String?

    public init(objectId: String, installationId: String, session: String, at: String, reason: String? = nil) {
        self.objectId = objectId
        self.installationId = installationId
        self.session = session
        self.at = at
        self.reason = reason
    }

    init(_ read: EventFields) throws {
        objectId = try read.string("objectId")
        installationId = read.optionalString("installationId") ?? ""
        session = try read.string("session")
        at = try read.string("at")
        reason = read.optionalString("reason")
    }

    public var json: JSON {
        var o: [String: JSON] = [
            "objectId": .string(objectId), "installationId": .string(installationId), "session": .string(session),
            "at": .string(at),
        ]
        if let reason { o["reason"] = .string(reason) }
        return .object(o)
    }
}
