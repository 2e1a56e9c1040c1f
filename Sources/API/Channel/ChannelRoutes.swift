import DeviceChannel
import Foundation
import Hummingbird
import Ledger
import PushCore

/// `GET /channel` without a WebSocket upgrade (SPEC §12.2): why the connection would be refused, so an
/// operator's `curl` shows what a device's handshake cannot.
public struct ChannelRoutes: Sendable {
    let channel: DeviceChannel

    public init(channel: DeviceChannel) { self.channel = channel }

    public func register(on router: some RouterMethods<PushContext>) {
        router.get("channel") { request, _ -> Response in
            switch await channel.check(request.head) {
            case .refused(let error):
                throw error
            case .accepted:
                throw LeanError(1, "Connect with a WebSocket upgrade (Upgrade: websocket).", status: 426)
            }
        }
    }
}
