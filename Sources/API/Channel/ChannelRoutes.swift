import DeviceChannel
import Foundation
import HTTPEdge
import Hummingbird
import Ledger
import PushCore

/// `GET /channel` without a WebSocket upgrade (SPEC §12.2): why the connection would be refused, so an
/// operator's `curl` shows what a device's handshake cannot. And `GET /v1/route` (SPEC §12.4), where the
/// LeanCloud SDK asks for the channel's URL: outside `/1.1`, without auth headers, as the SDK sends it.
public struct ChannelRoutes: Sendable {
    let channel: DeviceChannel

    public init(channel: DeviceChannel) { self.channel = channel }

    public func register(on router: some RouterMethods<AppRequestContext>) {
        router.get("channel") { request, _ -> Response in
            switch await channel.check(request.head) {
            case .refused(let error):
                throw error
            case .accepted, .awaitingLogin:
                throw LeanErrorResponse(
                    .invalidParameter("Connect with a WebSocket upgrade (Upgrade: websocket)."),
                    status: .init(code: 426))
            }
        }
        router.get("v1/route") { request, _ -> Response in
            JSONResponse.make(
                try await channel.route(
                    appId: request.uri.queryParameters["appId"].map(String.init),
                    host: request.head.authority))
        }
    }
}
