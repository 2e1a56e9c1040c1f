import DeviceChannel
import Foundation
import Hummingbird
import Ledger
import PushCore

/// `GET /1.1/installations/:objectId/online` (master key): a device's presence on the own channel.
public struct PresenceRoutes: Sendable {
    let channel: DeviceChannel
    let installations: InstallationStore

    public init(channel: DeviceChannel, installations: InstallationStore) {
        self.channel = channel
        self.installations = installations
    }

    public func register(on router: some RouterMethods<PushContext>) {
        router.get("installations/:objectId/online") { _, context -> Response in
            let app = try context.requireMaster()
            return JSONResponse.make(try await presence(app: app, objectId: try context.parameters.require("objectId")))
        }
    }

    /// `{"online","since","lastSeen"}` of an installation of `app` (the console shows the same).
    public func presence(app: App, objectId: String) async throws -> JSON {
        guard try await installations.get(appId: app.appId, objectId: objectId) != nil else {
            throw LeanError.notFound()
        }
        let presence = try await channel.ledger.presence(appId: app.appId, objectId: objectId)
        return Self.rendered(presence, now: channel.ledger.clock.now(), window: channel.onlineWindow)
    }

    /// `online` is true while the device holds a connection that was heard from within the online window
    /// (a connection whose process died stops counting once it is that stale); dates are null for a device
    /// that never connected.
    static func rendered(_ presence: Presence?, now: Date, window: Duration) -> JSON {
        guard let presence else { return ["online": false, "since": .null, "lastSeen": .null] }
        let fresh = now.timeIntervalSince(presence.lastSeen) <= window.timeInterval
        return [
            "online": .bool(presence.connected && fresh),
            "since": .string(LeanDate.format(presence.since)), "lastSeen": .string(LeanDate.format(presence.lastSeen)),
        ]
    }
}
