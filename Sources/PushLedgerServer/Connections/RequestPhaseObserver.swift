import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Tells the connection's `ConnectionGuard` where each request and response stands (a head, an end), which the
/// guard cannot tell from bytes. Hummingbird adds it to every connection that is not upgraded, after its
/// HTTP codec.
final class RequestPhaseObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var connectionGuard: ConnectionGuard?

    func handlerAdded(context: ChannelHandlerContext) {
        connectionGuard = try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) { connectionGuard = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: connectionGuard?.requestHead()
        case .end: connectionGuard?.requestEnd()
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.kind != .informational: connectionGuard?.responseHead()
        case .end: connectionGuard?.responseEnd()
        case .head, .body: break
        }
        context.write(data, promise: promise)
    }
}
