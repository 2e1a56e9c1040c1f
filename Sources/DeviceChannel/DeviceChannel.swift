import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Ledger
import Logging
import NIOCore
import PushCore
import ServiceLifecycle

/// The own device channel of `serve` (SPEC §12.2, §12.4): WebSocket connections at `/channel`, in the JSON dialect
/// authenticated by the device's channel token, or in the LeanCloud SDK's protobuf dialect (chosen by its
/// subprotocol) logging in by installationId; plus the services that feed them (announced batches) and end what
/// they leave (expiry). Everything durable is in PostgreSQL, so any number of processes can serve devices of one
/// app.
public struct DeviceChannel: Sendable {
    public static let path = "/channel"
    public let hub: ChannelHub
    let apps: AppDirectory
    public let ledger: ChannelLedger

    /// How long after it was last heard from a connected device still reads as online.
    public var onlineWindow: Duration { hub.configuration.onlineWindow }

    public init(apps: AppDirectory, ledger: ChannelLedger, configuration: ChannelConfiguration, logger: Logger) {
        self.apps = apps
        self.ledger = ledger
        hub = ChannelHub(ledger: ledger, configuration: configuration, logger: logger)
    }

    /// The decision for a WebSocket upgrade request: nil when it is not for `/channel` (the router answers
    /// it). Every upgrade request for `/channel` is upgraded, and a refused one is then told why in an `error`
    /// frame and a close code 4000 + the HTTP status (4401 for wrong credentials): a browser's WebSocket
    /// cannot read the status of a failed handshake. A plain `GET /channel` goes on to the router, which
    /// answers the same refusal as a LeanCloud error.
    /// A request naming an SDK subprotocol (`framing`) is admitted to log in over the connection: the SDK
    /// sends its credentials, such as they are, in its first command.
    public func admission(target: String, authorization: String?, framing: SDKFraming?) async -> Admission? {
        guard Self.isChannelPath(target) else { return nil }
        if framing != nil { return .awaitingLogin }
        return await check(target: target, authorization: authorization)
    }

    /// The handler that serves an upgraded connection: the device's, or the refusal's, in the dialect of
    /// `framing` (the JSON dialect when nil).
    public func handler(for admission: Admission, framing: SDKFraming?) -> any ChannelHandler {
        let role: DeviceFrameHandler.Role
        switch (admission, framing) {
        case (.accepted(let app, let installationId), _):
            role = .device(hub: hub, app: app, installationId: installationId)
        case (.awaitingLogin, let framing?):
            role = .sdk(hub: hub, apps: apps, framing: framing)
        case (.awaitingLogin, nil):
            role = .refused(.missingField("Name an SDK subprotocol to log in over the connection."), dialect: .json)
        case (.refused(let error), _):
            role = .refused(error, dialect: framing.map(ChannelDialect.sdk) ?? .json)
        }
        return DeviceFrameHandler(role: role, pingInterval: hub.configuration.pingInterval)
    }

    static func isChannelPath(_ target: String?) -> Bool {
        target.map { URI($0).path == Self.path } ?? false
    }

    /// What a connection request amounts to.
    public enum Admission: Sendable {
        case accepted(App, installationId: String)
        /// An SDK-dialect connection: the device is admitted by its `login` command.
        case awaitingLogin
        case refused(LeanError)

        /// The connection will serve a device (and takes a slot of the channel's connection cap).
        public var servesDevice: Bool {
            if case .refused = self { false } else { true }
        }
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
            return .refused(Self.unavailable)
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
