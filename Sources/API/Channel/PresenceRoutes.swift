import DeviceChannel
import Foundation
import HTTPEdge
import Hummingbird
import Ledger
import PushCore

/// `GET /1.1/installations/:objectId/online` (master key): a device's presence on the own channel.
public struct PresenceRoutes: Sendable {
    let channel: DeviceChannel
    let installations: InstallationQueries

    public init(channel: DeviceChannel, installations: InstallationQueries) {
        self.channel = channel
        self.installations = installations
    }

    public func register(on router: some RouterMethods<AppRequestContext>) {
        router.get("installations/:objectId/online") { _, context -> Response in
            let app = try context.requireMaster()
            return JSONResponse.make(try await presence(app: app, objectId: try context.parameters.require("objectId")))
        }
    }

    /// The presence of an installation of `app`; an installation it does not have is not found.
    func presence(app: App, objectId: String) async throws -> JSON {
        guard try await installations.get(appId: app.appId, objectId: objectId) != nil else {
            throw LeanError.notFound()
        }
        return try await channel.presence(appId: app.appId, objectId: objectId)
    }
}
