import NIOCore
import NIOHTTP1

/// Serves HTTP/1.1 clients (ALPN `http/1.1` or none), mainly for scripts poking the `/_sim/*` endpoints.
/// The provider look-alikes answer here too, although the real APNs speaks only HTTP/2.
final class HTTP1RequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let engine: SimulatorEngine
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?
    private var bodyTooLarge = false
    private var isResponding = false
    private var closeWhenIdle = false
    private var isActive = true

    init(engine: SimulatorEngine) {
        self.engine = engine
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            self.body = nil
            self.bodyTooLarge = false
        case .body(var chunk):
            if (self.body?.readableBytes ?? 0) + chunk.readableBytes > SimulatorRequest.maximumBodyBytes {
                self.bodyTooLarge = true
                self.body = nil
            } else if !self.bodyTooLarge {
                if self.body == nil { self.body = chunk } else { self.body!.writeBuffer(&chunk) }
            }
        case .end:
            guard let head = self.head else { return }
            self.head = nil
            let request = SimulatorRequest(
                method: head.method.rawValue,
                path: head.uri,
                headers: head.headers.map { ($0.name.lowercased(), $0.value) },
                body: self.body ?? ByteBuffer(),
                bodyTooLarge: self.bodyTooLarge
            )
            self.body = nil
            let response = self.engine.handle(request)
            self.isResponding = true
            let keepAlive = head.isKeepAlive
            if response.delay > .zero {
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: response.delay) {
                    let (handler, context) = bound.value
                    handler.respond(response, version: head.version, keepAlive: keepAlive, context: context)
                }
            } else {
                self.respond(response, version: head.version, keepAlive: keepAlive, context: context)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // A delayed answer may still be scheduled; it must not write into a dead pipeline.
        self.isActive = false
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is SimulatorDrainEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        if self.isResponding {
            self.closeWhenIdle = true
        } else {
            context.close(promise: nil)
        }
    }

    private func respond(
        _ response: SimulatorResponse, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext
    ) {
        guard self.isActive else { return }
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        headers.add(name: "content-length", value: String(response.body?.readableBytes ?? 0))
        let keepOpen = keepAlive && !self.closeWhenIdle
        if !keepOpen { headers.add(name: "connection", value: "close") }
        let head = HTTPResponseHead(
            version: version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        if let body = response.body {
            context.write(self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        self.isResponding = false
        let written = context.writeAndFlush(self.wrapOutboundOut(.end(nil)))
        if !keepOpen {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
