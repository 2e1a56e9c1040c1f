import NIOCore
import NIOWebSocket

/// Where a device session's frames go: the connection's NIO channel, written to from any task. Closing goes
/// through the connection's `DeviceFrameHandler`, which runs the WebSocket close handshake.
final class DeviceSocket: Sendable {
    private let channel: any Channel
    private let handler: NIOLoopBound<DeviceFrameHandler>

    init(channel: any Channel, handler: NIOLoopBound<DeviceFrameHandler>) {
        self.channel = channel
        self.handler = handler
    }

    /// Writes one text frame; throws when the connection is gone.
    func send(_ text: String) async throws {
        let frame = WebSocketFrame(fin: true, opcode: .text, data: channel.allocator.buffer(string: text))
        try await channel.writeAndFlush(frame).get()
    }

    /// Starts the close handshake with `code`; the connection is closed a moment later whatever the client does.
    func close(code: UInt16, reason: String) {
        let handler = self.handler
        channel.eventLoop.execute { handler.value.startClose(code: code, reason: reason) }
    }
}
