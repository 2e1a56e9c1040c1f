import Foundation
import HTTPEdge
import Ledger
import NIOCore
import NIOWebSocket
import PushCore

/// One device's WebSocket connection, handled in the event loop: nothing waits on an idle device but this
/// handler's state and one ping timer, so an idle connection costs a few KiB (tasks and async channels
/// would cost several times as much each, and most devices are idle most of the time). Frames go to the
/// hub; what needs the database runs in tasks only while there is something to do. The SDK dialect's commands
/// are handled in `DeviceFrameHandler+SDK.swift`.
final class DeviceFrameHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// What the connection is for: a JSON-dialect device admitted at the upgrade by its token, an SDK-dialect
    /// connection whose device is admitted by its `login` command, or a refusal told to the client.
    enum Role {
        case device(hub: ChannelHub, app: App, installationId: String)
        case sdk(hub: ChannelHub, apps: AppDirectory, framing: SDKFraming)
        case refused(LeanError, dialect: ChannelDialect)
    }

    /// Messages from a device are acks, logins and echoes: far below this. Larger ones close the connection
    /// (1009).
    static let maxMessageBytes = 64 * 1024

    let role: Role
    private let pingInterval: TimeAmount
    private let closeTimeout: TimeAmount
    private(set) var context: ChannelHandlerContext?
    /// The device's session, once admitted (at once in the JSON dialect, on login in the SDK's).
    var session: DeviceSession?
    private var pinger: Scheduled<Void>?
    /// An SDK-dialect connection without a login by then is closed (`DeviceFrameHandler+SDK.swift`).
    var loginTimer: Scheduled<Void>?
    /// A login's app is being looked up: a second login meanwhile is refused.
    var loggingIn = false
    private var awaitingPong = false
    /// A fragmented message so far, with the opcode of its first frame.
    private var fragments: (opcode: WebSocketOpcode, data: ByteBuffer)?
    private(set) var closing = false
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
            session = hub.open(app: app, installationId: installationId, dialect: .json, socket: socket())
            schedulePing()
        case .sdk:
            schedulePing()
            awaitLogin()
        case .refused(let error, _):
            // A pause before the answer slows down token guessing, and keeps the frame out of the read that
            // carries the handshake's answer (some clients hung when both arrived together).
            context.eventLoop.scheduleTask(in: .milliseconds(100)) { me.value.refuse(error) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        pinger?.cancel()
        loginTimer?.cancel()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        pinger?.cancel()
        loginTimer?.cancel()
        if let session, let hub { hub.closed(session, reason: closeReason) }
        session = nil
        context.fireChannelInactive()
    }

    /// The hub the connection's device is served by (none for a refusal).
    var hub: ChannelHub? {
        switch role {
        case .device(let hub, _, _), .sdk(let hub, _, _): hub
        case .refused: nil
        }
    }

    /// The socket a session writes to: this connection.
    func socket() -> DeviceSocket {
        guard let context else { preconditionFailure("a session is opened only while the handler is added") }
        return DeviceSocket(channel: context.channel, handler: NIOLoopBound(self, eventLoop: context.eventLoop))
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
        case .text, .binary:
            if frame.fin {
                received(frame.unmaskedData, opcode: frame.opcode)
            } else {
                fragments = (frame.opcode, frame.unmaskedData)
            }
        case .continuation:
            guard let pending = fragments else {
                return startClose(code: 1002, reason: "unexpected continuation")
            }
            var buffer = pending.data
            var more = frame.unmaskedData
            buffer.writeBuffer(&more)
            guard buffer.readableBytes <= Self.maxMessageBytes else { return tooLarge() }
            if frame.fin {
                fragments = nil
                received(buffer, opcode: pending.opcode)
            } else {
                fragments = (pending.opcode, buffer)
            }
        default:
            startClose(code: 1002, reason: "unknown opcode")
        }
    }

    /// One whole message from the device, for its dialect.
    private func received(_ buffer: ByteBuffer, opcode: WebSocketOpcode) {
        guard buffer.readableBytes <= Self.maxMessageBytes else { return tooLarge() }
        switch role {
        case .device(let hub, _, _):
            // The JSON dialect has no binary frames; ignored, as unknown frame types are.
            guard opcode == .text, let session else { return }
            hub.received(String(buffer: buffer), from: session)
        case .sdk(let hub, let apps, let framing):
            receivedCommand(
                Array(buffer.readableBytesView), text: opcode == .text, framing: framing, hub: hub, apps: apps)
        case .refused:
            break
        }
    }

    private func tooLarge() {
        if case .sdk(_, _, let framing) = role {
            send(SDKReply.error(.frameTooLong, reason: "message too large"), framing: framing)
        }
        startClose(code: 1009, reason: "message too large")
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

    /// Tells the client why in its dialect (the SDK's `error` command carries the close code, 4000 + the HTTP
    /// status, as its code), then closes.
    private func refuse(_ error: LeanError) {
        let code = UInt16(4000 + error.kind.httpStatus)
        switch role {
        case .refused(_, .sdk(let framing)):
            send(SDKReply.error(code: Int32(code), reason: error.message), framing: framing)
        default:
            let frame: JSON = [
                "type": "error", "code": .int(Int64(error.code.rawValue)), "error": .string(error.message),
                "status": .int(Int64(error.kind.httpStatus)),
            ]
            write(.text(frame.encoded()))
        }
        startClose(code: code, reason: error.message)
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

    func write(_ frame: OutboundFrame) {
        guard let context else { return }
        write(DeviceSocket.webSocketFrame(frame, allocator: context.channel.allocator))
    }

    /// Writes one command of the SDK dialect.
    func send(_ command: LCGenericCommand, framing: SDKFraming) { write(framing.encode(command)) }
}

/// The frame limits of device connections, for the upgrade that installs the frame decoder.
public enum DeviceFrameHandlerLimits {
    /// A frame may hold a whole message.
    public static let maxFrameBytes = DeviceFrameHandler.maxMessageBytes
}
