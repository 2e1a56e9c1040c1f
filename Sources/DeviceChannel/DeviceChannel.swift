import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Ledger
import Logging
import NIOCore
import PushCore
import ServiceLifecycle

/// The own device channel of `serve` (SPEC §12.2): WebSocket connections at `/channel`, authenticated by the
/// device's channel token, plus the services that feed them (announced batches) and end what they leave
/// (expiry). Everything durable is in PostgreSQL, so any number of processes can serve devices of one app.
public struct DeviceChannel: Sendable {
    public static let path = "/channel"
    public let hub: ChannelHub
    let apps: AppStore
    public let ledger: ChannelLedger

    /// How long after it was last heard from a connected device still reads as online.
    public var onlineWindow: Duration { hub.configuration.onlineWindow }

    public init(apps: AppStore, ledger: ChannelLedger, configuration: ChannelConfiguration, logger: Logger) {
        self.apps = apps
        self.ledger = ledger
        hub = ChannelHub(ledger: ledger, configuration: configuration, logger: logger)
    }

    /// The decision for a WebSocket upgrade request: nil when it is not for `/channel` (the router answers
    /// it). Every upgrade request for `/channel` is upgraded, and a refused one is then told why in an `error`
    /// frame and a close code 4000 + the HTTP status (4401 for wrong credentials): a browser's WebSocket
    /// cannot read the status of a failed handshake. A plain `GET /channel` goes on to the router, which
    /// answers the same refusal as a LeanCloud error.
    public func admission(target: String, authorization: String?) async -> Admission? {
        guard Self.isChannelPath(target) else { return nil }
        return await check(target: target, authorization: authorization)
    }

    /// The handler that serves an upgraded connection: the device's, or the refusal's.
    public func handler(for admission: Admission) -> any ChannelHandler {
        switch admission {
        case .accepted(let app, let installationId):
            DeviceFrameHandler(
                role: .device(hub: hub, app: app, installationId: installationId),
                pingInterval: hub.configuration.pingInterval)
        case .refused(let error):
            DeviceFrameHandler(role: .refused(error), pingInterval: hub.configuration.pingInterval)
        }
    }

    static func isChannelPath(_ target: String?) -> Bool {
        target.map { URI($0).path == Self.path } ?? false
    }

    /// What a connection request amounts to.
    public enum Admission: Sendable {
        case accepted(App, installationId: String)
        case refused(LeanError)
    }

    /// Checks the credentials in the query (`appId`, `installationId`, `token`; the token may come as
    /// `Authorization: Bearer` instead, to keep it out of access logs).
    public func check(_ request: HTTPRequest) async -> Admission {
        await check(target: request.path ?? "", authorization: request.headerFields[.authorization])
    }

    func check(target: String, authorization: String?) async -> Admission {
        guard Self.isChannelPath(target) else { return .refused(.notFound("Not a channel path.")) }
        // Hummingbird's own query parsing, as for every REST route.
        let query = URI(target).queryParameters
        guard let appId = query["appId"].map(String.init), !appId.isEmpty,
            let installationId = query["installationId"].map(String.init), !installationId.isEmpty
        else {
            return .refused(.missingField("appId and installationId are required to connect."))
        }
        let bearer = authorization.flatMap { value in
            value.hasPrefix("Bearer ") ? String(value.dropFirst(7)) : nil
        }
        guard let token = query["token"].map(String.init) ?? bearer else {
            return .refused(
                .missingField("token is required: the channelToken returned when the installation is saved."))
        }
        let app: App?
        do {
            app = try await apps.find(appId)
        } catch {
            return .refused(LeanError(1, "The channel is unavailable; retry with backoff.", status: 503))
        }
        guard let app, ChannelToken.verify(token, app: app, installationId: installationId) else {
            ChannelMetrics.refused.increment()
            return .refused(.unauthorized)
        }
        return .accepted(app, installationId: installationId)
    }

    /// The services that keep the channel going in `serve`.
    public func services(databaseURL: String, logger: Logger) -> [any Service] {
        [
            ChannelFanIn(url: databaseURL, hub: hub, ledger: ledger, logger: logger),
            ChannelMaintenance(hub: hub, ledger: ledger, logger: logger),
        ]
    }
}
