import Foundation
import Ledger
import NIOCore
import NIOWebSocket
import PushCore

/// One device's WebSocket connection, handled in the event loop: nothing waits on an idle device but this
/// handler's state and one ping timer, so an idle connection costs a few KiB (tasks and async channels
/// would cost several times as much each, and most devices are idle most of the time). Frames go to the
/// hub; what needs the database runs in tasks only while there is something to do.
final class DeviceFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// What the connection is for: a device admitted to the hub, or a refusal told to the client.
    enum Role {
        case device(hub: ChannelHub, app: App, installationId: String)
        case refused(LeanError)
    }

    /// Text messages from a device are acks: far below this. Larger ones close the connection (1009).
    static let maxMessageBytes = 64 * 1024

    private let role: Role
    private let pingInterval: TimeAmount
    private let closeTimeout: TimeAmount
    private var context: ChannelHandlerContext?
    private var session: DeviceSession?
    private var pinger: Scheduled<Void>?
    private var awaitingPong = false
    private var fragments: ByteBuffer?
    private var closing = false
    private var closeReason = "closed"

    init(role: Role, pingInterval: Duration, closeTimeout: Duration = .seconds(1)) {
        self.role = role
        self.pingInterval = TimeAmount(pingInterval)
        self.closeTimeout = TimeAmount(closeTimeout)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let me = NIOLoopBound(self, eventLoop: context.eventLoop)
        switch role {
        case .device(let hub, let app, let installationId):
            session = hub.open(
                app: app, installationId: installationId, socket: DeviceSocket(channel: context.channel, handler: me))
            schedulePing()
        case .refused(let error):
            // A pause before the answer slows down token guessing, and keeps the frame out of the read that
            // carries the handshake's answer (some clients hung when both arrived together).
            context.eventLoop.scheduleTask(in: .milliseconds(100)) { me.value.refuse(error) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        pinger?.cancel()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        pinger?.cancel()
        if let session, case .device(let hub, _, _) = role { hub.closed(session, reason: closeReason) }
        session = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        closeReason = "error"
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The server is shutting down: going away, reconnect elsewhere.
        if event is ChannelShouldQuiesceEvent { startClose(code: 1001, reason: "server shutting down") }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        // Anything the device sends shows it is there.
        awaitingPong = false
        switch frame.opcode {
        case .ping:
            guard frame.fin else { return startClose(code: 1002, reason: "fragmented ping") }
            write(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
        case .pong:
            break
        case .connectionClose:
            if !closing {
                closing = true
                var data = frame.unmaskedData
                let code = data.readInteger(as: UInt16.self) ?? 1000
                write(closeFrame(code: code, reason: ""))
            }
            context.close(promise: nil)
        case .text:
            if frame.fin { received(frame.unmaskedData) } else { fragments = frame.unmaskedData }
        case .continuation:
            guard var buffer = fragments else { return startClose(code: 1002, reason: "unexpected continuation") }
            var more = frame.unmaskedData
            buffer.writeBuffer(&more)
            guard buffer.readableBytes <= Self.maxMessageBytes else {
                return startClose(code: 1009, reason: "message too large")
            }
            if frame.fin {
                fragments = nil
                received(buffer)
            } else {
                fragments = buffer
            }
        case .binary:
            // The JSON dialect has no binary frames; ignored, as unknown frame types are.
            break
        default:
            startClose(code: 1002, reason: "unknown opcode")
        }
    }

    private func received(_ buffer: ByteBuffer) {
        guard buffer.readableBytes <= Self.maxMessageBytes else {
            return startClose(code: 1009, reason: "message too large")
        }
        guard let session, case .device(let hub, _, _) = role else { return }
        hub.received(String(buffer: buffer), from: session)
    }

    // MARK: Pings and closes

    /// A ping every interval; a device that has not answered the previous one (nor sent anything since) is
    /// disconnected.
    private func schedulePing() {
        guard let context else { return }
        let me = NIOLoopBound(self, eventLoop: context.eventLoop)
        pinger = context.eventLoop.scheduleTask(in: pingInterval) { me.value.ping() }
    }

    private func ping() {
        guard !closing else { return }
        if awaitingPong {
            closeReason = "error"
            return startClose(code: 1001, reason: "ping timeout")
        }
        awaitingPong = true
        write(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer()))
        schedulePing()
    }

    private func refuse(_ error: LeanError) {
        let frame: JSON = [
            "type": "error", "code": .int(Int64(error.code)), "error": .string(error.message),
            "status": .int(Int64(error.httpStatus)),
        ]
        guard let context else { return }
        write(WebSocketFrame(fin: true, opcode: .text, data: context.channel.allocator.buffer(string: frame.encoded())))
        startClose(code: UInt16(4000 + error.httpStatus), reason: error.message)
    }

    /// Sends a close frame and closes the connection once the client answers, or after `closeTimeout`.
    func startClose(code: UInt16, reason: String) {
        guard let context, !closing else { return }
        closing = true
        pinger?.cancel()
        write(closeFrame(code: code, reason: reason))
        let channel = context.channel
        context.eventLoop.scheduleTask(in: closeTimeout) { channel.close(promise: nil) }
    }

    private func closeFrame(code: UInt16, reason: String) -> WebSocketFrame {
        var data = context?.channel.allocator.buffer(capacity: 2 + 123) ?? ByteBuffer()
        data.writeInteger(code)
        // A close reason may hold 123 bytes at most.
        data.writeString(String(decoding: reason.utf8.prefix(120), as: UTF8.self))
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }

    private func write(_ frame: WebSocketFrame) {
        context?.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }
}

/// The frame limits of device connections, for the upgrade that installs the frame decoder.
public enum DeviceFrameHandlerLimits {
    /// A frame may hold a whole message.
    public static let maxFrameBytes = DeviceFrameHandler.maxMessageBytes
}
