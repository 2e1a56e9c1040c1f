import NIOCore
import NIOHTTP2

/// Serves one HTTP/2 connection straight from its frames.
///
/// Deliberately not the stream multiplexer: a child channel and pipeline per stream costs more than the simulated
/// provider's whole answer, and the load test pushes a million streams through one core. Requests are tiny and
/// answered at once, so per-stream state is a dictionary entry until the request's END_STREAM.
final class HTTP2ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private struct PendingStream {
        var method = ""
        var path = ""
        var headers: [(name: String, value: String)] = []
        var body: ByteBuffer?
        var bodyTooLarge = false
    }

    /// Without the multiplexer nobody replenishes the connection-level receive window, so this handler does,
    /// every time this many DATA bytes have arrived.
    private static let windowUpdateThreshold = 32 * 1024
    /// The connection-level receive window granted as the connection starts, instead of HTTP/2's 65,535 bytes. A
    /// client with a thousand small requests in flight would otherwise run out of window, split bodies and wait
    /// for an update that the threshold above may never reach once fewer requests come (after a GOAWAY, say):
    /// the request whose tail waits is then never answered and the draining connection never closes.
    static let connectionWindow = 16 * 1024 * 1024

    private let engine: SimulatorEngine
    private let goAwayAfterStreams: Int?
    private var streams: [HTTP2StreamID: PendingStream] = [:]
    /// Streams whose request began and whose answer is not yet written (including delayed answers).
    private var unansweredStreams = 0
    private var streamsOpened = 0
    private var lastStreamID = HTTP2StreamID.rootStream
    private var isDraining = false
    private var isClosing = false
    /// The GOAWAY write; closing waits for it so the peer learns why the connection ends.
    private var goAwayWritten: EventLoopFuture<Void>?
    private var unacknowledgedBytes = 0
    private var needsFlush = false
    private var windowOpened = false

    init(engine: SimulatorEngine, goAwayAfterStreams: Int?) {
        self.engine = engine
        self.goAwayAfterStreams = goAwayAfterStreams
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { self.openWindow(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.openWindow(context: context)
        context.fireChannelActive()
    }

    private func openWindow(context: ChannelHandlerContext) {
        guard !self.windowOpened else { return }
        self.windowOpened = true
        let increment = Self.connectionWindow - 65_535
        let update = HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))
        context.writeAndFlush(self.wrapOutboundOut(update), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        switch frame.payload {
        case .headers(let headers):
            if self.streams[frame.streamID] == nil {
                self.open(frame.streamID, headers: headers, context: context)
            }
            if headers.endStream {
                self.complete(frame.streamID, context: context)
            }
        case .data(let data):
            self.consume(data, on: frame.streamID, context: context)
            if data.endStream {
                self.complete(frame.streamID, context: context)
            }
        case .rstStream:
            if self.streams.removeValue(forKey: frame.streamID) != nil {
                self.unansweredStreams -= 1
                self.closeIfDrained(context: context)
            }
        default:
            break
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if self.needsFlush {
            self.needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        // Delayed answers still scheduled for this connection must not touch a dead pipeline.
        self.isClosing = true
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is SimulatorDrainEvent {
            self.sendGoAway(context: context)
            context.flush()
            self.closeIfDrained(context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func open(
        _ streamID: HTTP2StreamID, headers frame: HTTP2Frame.FramePayload.Headers, context: ChannelHandlerContext
    ) {
        var stream = PendingStream()
        stream.headers.reserveCapacity(frame.headers.count)
        for (name, value, _) in frame.headers {
            switch name {
            case ":method": stream.method = value
            case ":path": stream.path = value
            default: if !name.hasPrefix(":") { stream.headers.append((name, value)) }
            }
        }
        self.streams[streamID] = stream
        self.unansweredStreams += 1
        self.streamsOpened += 1
        self.lastStreamID = max(self.lastStreamID, streamID)
        if let limit = self.goAwayAfterStreams, self.streamsOpened >= limit, !self.isDraining {
            self.engine.goAways.add(1, ordering: .relaxed)
            self.sendGoAway(context: context)
        }
    }

    private func consume(
        _ data: HTTP2Frame.FramePayload.Data, on streamID: HTTP2StreamID, context: ChannelHandlerContext
    ) {
        guard case .byteBuffer(var buffer) = data.data else { return }
        self.unacknowledgedBytes += buffer.readableBytes + (data.paddingBytes.map { $0 + 1 } ?? 0)
        if self.unacknowledgedBytes >= Self.windowUpdateThreshold {
            let increment = self.unacknowledgedBytes
            self.unacknowledgedBytes = 0
            let update = HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment))
            context.write(self.wrapOutboundOut(update), promise: nil)
            self.needsFlush = true
        }
        guard self.streams[streamID] != nil else { return }
        let buffered = self.streams[streamID]!.body?.readableBytes ?? 0
        if buffered + buffer.readableBytes > SimulatorRequest.maximumBodyBytes {
            self.streams[streamID]!.bodyTooLarge = true
            self.streams[streamID]!.body = nil
        } else if !self.streams[streamID]!.bodyTooLarge {
            if self.streams[streamID]!.body == nil {
                self.streams[streamID]!.body = buffer
            } else {
                self.streams[streamID]!.body!.writeBuffer(&buffer)
            }
        }
    }

    private func complete(_ streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        guard let stream = self.streams.removeValue(forKey: streamID) else { return }
        let request = SimulatorRequest(
            method: stream.method,
            path: stream.path,
            headers: stream.headers,
            body: stream.body ?? ByteBuffer(),
            bodyTooLarge: stream.bodyTooLarge
        )
        let response = self.engine.handle(request)
        if response.delay > .zero {
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: response.delay) {
                let (handler, context) = bound.value
                handler.write(response, on: streamID, context: context)
                context.flush()
            }
        } else {
            self.write(response, on: streamID, context: context)
            self.needsFlush = true
        }
    }

    private func write(_ response: SimulatorResponse, on streamID: HTTP2StreamID, context: ChannelHandlerContext) {
        self.unansweredStreams -= 1
        guard !self.isClosing else { return }
        var head = HTTP2Frame.FramePayload.Headers(headers: [:], endStream: response.body == nil)
        head.headers.reserveCapacity(response.headers.count + 2)
        head.headers.add(name: ":status", value: Self.statusText(response.status))
        for header in response.headers {
            head.headers.add(name: header.name, value: header.value)
        }
        if let body = response.body {
            head.headers.add(name: "content-length", value: String(body.readableBytes))
        }
        let headersFrame = self.wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .headers(head)))
        // A promise costs an allocation, so only the last answer on a draining connection asks for one.
        let isLast = self.isDraining && self.unansweredStreams == 0
        let promise = isLast ? context.eventLoop.makePromise(of: Void.self) : nil
        if let body = response.body {
            context.write(headersFrame, promise: nil)
            let data = HTTP2Frame.FramePayload.Data(data: .byteBuffer(body), endStream: true)
            context.write(self.wrapOutboundOut(HTTP2Frame(streamID: streamID, payload: .data(data))), promise: promise)
        } else {
            context.write(headersFrame, promise: promise)
        }
        self.closeIfDrained(context: context, after: promise?.futureResult)
    }

    private func sendGoAway(context: ChannelHandlerContext) {
        guard !self.isDraining else { return }
        self.isDraining = true
        let goAway = HTTP2Frame(
            streamID: .rootStream,
            payload: .goAway(lastStreamID: self.lastStreamID, errorCode: .noError, opaqueData: nil)
        )
        let promise = context.eventLoop.makePromise(of: Void.self)
        context.write(self.wrapOutboundOut(goAway), promise: promise)
        self.goAwayWritten = promise.futureResult
        self.needsFlush = true
    }

    /// Closes once a GOAWAY went out and every stream it admitted is answered; `lastWrite` (or the GOAWAY) must reach
    /// the socket first, or the peer would see a reset instead of its answers.
    private func closeIfDrained(context: ChannelHandlerContext, after lastWrite: EventLoopFuture<Void>? = nil) {
        guard self.isDraining, !self.isClosing, self.unansweredStreams == 0,
            let written = lastWrite ?? self.goAwayWritten
        else { return }
        self.isClosing = true
        context.flush()
        written.assumeIsolated().whenComplete { _ in
            // Closing at once would discard what the client is still sending (libcurl resets every finished
            // stream), and a close with unread input makes the kernel answer with a TCP reset that can destroy
            // the last answers before the client reads them; it would then re-send requests already processed.
            // So the client, which closes once its streams are done, gets `linger` to close first.
            context.eventLoop.assumeIsolated().scheduleTask(in: Self.linger) {
                context.close(promise: nil)
            }
        }
    }

    /// How long a drained connection waits for the client to close it.
    static let linger = TimeAmount.seconds(1)

    private static func statusText(_ status: Int) -> String {
        switch status {
        case 200: return "200"
        case 400: return "400"
        case 403: return "403"
        case 410: return "410"
        default: return String(status)
        }
    }
}
