import Foundation
import Ledger
import PushCore

extension DeviceChannel {
    /// `{"online","since","lastSeen"}` of a device, as `GET /1.1/installations/:objectId/online` answers and the
    /// console shows it. `online` is true while the device holds a connection that was heard from within the
    /// online window (a connection whose process died stops counting once it is that stale); the dates are
    /// null for a device that never connected.
    public func presence(appId: String, objectId: String) async throws -> JSON {
        let presence = try await ledger.presence(appId: appId, objectId: objectId)
        return Self.rendered(presence, now: ledger.clock.now(), window: onlineWindow)
    }

    static func rendered(_ presence: Presence?, now: Date, window: Duration) -> JSON {
        guard let presence else { return ["online": false, "since": .null, "lastSeen": .null] }
        let fresh = now.timeIntervalSince(presence.lastSeen) <= window.timeInterval
        return [
            "online": .bool(presence.connected && fresh),
            "since": .string(LeanDate.format(presence.since)), "lastSeen": .string(LeanDate.format(presence.lastSeen)),
        ]
    }
}
