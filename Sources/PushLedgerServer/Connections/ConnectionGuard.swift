import Foundation
import NIOCore
import NIOHTTP1
import NIOTLS
import PushCore

/// The first handler of every connection of `serve`'s port (after TLS): holds its place under the connection
/// cap, closes it when a request does not arrive in time or it idles too long, and answers requests the HTTP
/// parser refuses, since Hummingbird leaves such a connection open and unanswered. It sees only bytes; the
/// request phases come from `RequestPhaseObserver` (HTTP connections) and `ConnectionGuard.becomeChannel`
/// (device-channel upgrades), the parser's errors from `MalformedRequestCatcher`.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let limits: ConnectionLimits
    private let handshaking: Bool
    private var phase: ConnectionPhase?
    private var timer: Scheduled<Void>?
    private var armedFor: NIODeadline?
    private var context: ChannelHandlerContext?
    /// Which count this connection holds a place in.
    private var holds: Hold = .nothing

    private enum Hold { case nothing, http, channel }

    init(limits: ConnectionLimits, handshaking: Bool) {
        self.limits = limits
        self.handshaking = handshaking
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        guard limits.admitConnection() else {
            limits.report.count(.refusedHTTP)
            refuse(
                context, status: "503 Service Unavailable", code: 1,
                message: "Too many connections; retry later.", extraHeaders: "Retry-After: 1\r\n")
            return
        }
        holds = .http
        phase = ConnectionPhase(
            now: .now(), handshaking: handshaking, requestTimeout: TimeAmount(limits.configuration.requestTimeout),
            idleTimeout: TimeAmount(limits.configuration.idleTimeout))
        rearm()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        release()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        release()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        change { $0.requestStarted(now: .now()) }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let tls = event as? TLSUserEvent, case .handshakeCompleted = tls {
            change { $0.handshakeCompleted(now: .now()) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: What the other handlers report

    func requestHead() { change { $0.requestStarted(now: .now()) } }
    func requestEnd() { change { $0.requestReceived(now: .now()) } }
    func responseHead() { change { $0.responseStarted() } }
    func responseEnd() { change { $0.responseSent(now: .now()) } }

    /// The HTTP parser refused what arrived: answered 400 (431 for a head over its limit) unless a response is
    /// already being written, then closed.
    func malformed(_ error: Error) {
        guard let context, phase?.state != .closing else { return }
        let tooLarge = (error as? HTTPParserError) == .headerOverflow
        limits.report.count(tooLarge ? .headTooLarge : .malformed)
        if phase?.responseInProgress == true {
            close(context)
        } else if tooLarge {
            refuse(
                context, status: "431 Request Header Fields Too Large", code: 1,
                message: "The request head is too large.")
        } else {
            refuse(context, status: "400 Bad Request", code: 1, message: "Malformed HTTP request: \(error).")
        }
    }

    /// Moves the connection under the channel cap and out of the HTTP timeouts; false when the channel cap is
    /// reached (the connection stays an HTTP one, to be refused by the caller).
    func becameChannel() -> Bool {
        guard holds == .http else { return holds == .channel }
        guard limits.admitChannel() else {
            limits.report.count(.refusedChannel)
            return false
        }
        holds = .channel
        change { $0.upgradedToChannel() }
        return true
    }

    /// `becameChannel()` of the guard of `channel`, from any thread.
    static func becomeChannel(_ channel: any Channel) async -> Bool {
        (try? await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: ConnectionGuard.self).becameChannel()
        }.get()) ?? true
    }

    // MARK: Timers

    private func change(_ update: (inout ConnectionPhase) -> Void) {
        guard var current = phase, current.state != .closing else { return }
        update(&current)
        phase = current
        rearm()
    }

    /// One timer, for the phase's deadline; re-armed only when the deadline moves.
    private func rearm() {
        guard let context, let deadline = phase?.deadline else {
            timer?.cancel()
            timer = nil
            armedFor = nil
            return
        }
        guard deadline != armedFor else { return }
        timer?.cancel()
        armedFor = deadline
        // The task is cancelled when the handler goes, so it never outlives the connection.
        let me = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) { me.value.fire() }
    }

    private func fire() {
        guard let context, let end = phase?.expired(now: .now()) else { return }
        limits.report.count(end)
        if end == .requestTimeout, phase?.responseInProgress == false, phase?.handshaking == false {
            refuse(context, status: "408 Request Timeout", code: 1, message: "The request did not arrive in time.")
        } else {
            close(context)
        }
    }

    // MARK: Answers of our own

    private func refuse(
        _ context: ChannelHandlerContext, status: String, code: Int, message: String, extraHeaders: String = ""
    ) {
        let body = JSON.object(["code": .int(Int64(code)), "error": .string(message)]).encoded()
        let head =
            "HTTP/1.1 \(status)\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: "
            + "\(body.utf8.count)\r\nConnection: close\r\n\(extraHeaders)\r\n"
        phase?.closing()
        timer?.cancel()
        let me = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: head + body))).whenComplete {
            _ in
            me.value.shut()
        }
        // A client that does not read its answer (or a TLS session that cannot carry it yet) is closed anyway.
        context.eventLoop.scheduleTask(in: .seconds(2)) { me.value.shut() }
    }

    private func close(_ context: ChannelHandlerContext) {
        phase?.closing()
        timer?.cancel()
        shut()
    }

    /// Closes the input first: the upgrade handler still waiting for a first request then ends its wait as for a
    /// client that went away (which Hummingbird logs at trace level), instead of failing it when the pipeline
    /// goes (which it logs as an error, one line per connection).
    /// On a TLS connection the socket is closed below the TLS handler (`SocketCloser`).
    private func shut() {
        guard let context else { return }  // gone already
        if let closer = try? context.pipeline.syncOperations.handler(type: SocketCloser.self) {
            closer.closeSocket()
        } else {
            context.close(mode: .input, promise: nil)
            context.close(promise: nil)
        }
    }

    private func release() {
        switch holds {
        case .http: limits.releaseConnection()
        case .channel: limits.releaseChannel()
        case .nothing: break
        }
        holds = .nothing
    }
}
