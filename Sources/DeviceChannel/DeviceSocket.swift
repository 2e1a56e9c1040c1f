import NIOCore
import NIOWebSocket

/// One frame a device session writes: text for the JSON dialect and the SDK's base64 dialect, binary for the
/// SDK's protobuf dialect.
enum OutboundFrame: Sendable, Equatable {
    case text(String)
    case binary([UInt8])
}

/// Where a device session's frames go: the connection's NIO channel, written to from any task. Closing goes
/// through the connection's `DeviceFrameHandler`, which runs the WebSocket close handshake.
final class DeviceSocket: Sendable {
    private let channel: any Channel
    private let handler: NIOLoopBound<DeviceFrameHandler>

    init(channel: any Channel, handler: NIOLoopBound<DeviceFrameHandler>) {
        self.channel = channel
        self.handler = handler
    }

    /// Writes one frame; throws when the connection is gone.
    func send(_ frame: OutboundFrame) async throws {
        try await channel.writeAndFlush(Self.webSocketFrame(frame, allocator: channel.allocator)).get()
    }

    /// Starts the close handshake with `code`; the connection is closed a moment later whatever the client does.
    func close(code: UInt16, reason: String) {
        let handler = self.handler
        channel.eventLoop.execute { handler.value.startClose(code: code, reason: reason) }
    }

    static func webSocketFrame(_ frame: OutboundFrame, allocator: ByteBufferAllocator) -> WebSocketFrame {
        switch frame {
        case .text(let text): WebSocketFrame(fin: true, opcode: .text, data: allocator.buffer(string: text))
        case .binary(let bytes): WebSocketFrame(fin: true, opcode: .binary, data: allocator.buffer(bytes: bytes))
        }
    }
}
