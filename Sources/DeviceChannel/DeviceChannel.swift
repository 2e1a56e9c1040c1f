import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Ledger
import Logging
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

    public typealias Handler = WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>

    /// The WebSocket upgrade decision for any request. Every upgrade request for `/channel` is upgraded, and a
    /// refused one is then told why in an `error` frame and a close code 4000 + the HTTP status (4401 for
    /// wrong credentials): a browser's WebSocket cannot read the status of a failed handshake, and
    /// hummingbird answers every declined upgrade with a bare 400. A plain `GET /channel` goes on to the
    /// router, which answers the same refusal as a LeanCloud error.
    @Sendable public func shouldUpgrade(_ request: HTTPRequest) async -> ShouldUpgradeResult<Handler> {
        guard Self.isChannelPath(request.path) else { return .dontUpgrade }
        switch await check(request) {
        case .accepted(let app, let installationId):
            return .upgrade([:]) { inbound, outbound, _ in
                await hub.serve(app: app, installationId: installationId, inbound: inbound, outbound: outbound)
            }
        case .refused(let error):
            return refusal(error)
        }
    }

    /// An upgrade that tells the client why it is refused, in an `error` frame and a close code 4000 + the
    /// HTTP status, then closes.
    public func refusal(_ error: LeanError) -> ShouldUpgradeResult<Handler> {
        .upgrade([:]) { _, outbound, _ in
            // A pause before the answer slows down token guessing, and keeps the frame out of the read that
            // carries the handshake's answer: swift-websocket's client (the reference client's) hung on
            // about one connection in eight when both arrived together.
            try? await Task.sleep(for: .milliseconds(100))
            let frame: JSON = [
                "type": "error", "code": .int(Int64(error.code)), "error": .string(error.message),
                "status": .int(Int64(error.httpStatus)),
            ]
            try? await outbound.writeTextMessage(frame.encoded())
            // A close reason may hold 123 bytes at most; the messages are ASCII.
            let reason = String(decoding: error.message.utf8.prefix(120), as: UTF8.self)
            try? await outbound.close(.unknown(UInt16(4000 + error.httpStatus)), reason: reason)
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
        guard let target = request.path, Self.isChannelPath(target) else {
            return .refused(.notFound("Not a channel path."))
        }
        // Hummingbird's own query parsing, as for every REST route.
        let query = URI(target).queryParameters
        guard let appId = query["appId"].map(String.init), !appId.isEmpty,
            let installationId = query["installationId"].map(String.init), !installationId.isEmpty
        else {
            return .refused(.missingField("appId and installationId are required to connect."))
        }
        let bearer = request.headerFields[.authorization].flatMap { value in
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
