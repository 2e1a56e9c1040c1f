import NIOCore
import NIOHTTP1

/// Sits right after the HTTP request decoder and hands its errors (a control character in the path or a
/// header, a header line without a colon, a TLS handshake on the plain port, a head over the limit) to the
/// connection's `ConnectionGuard`, which answers and closes. Without it they reach no handler that answers,
/// and the connection stays open unanswered. Passes every message through untouched, so it can stay in the
/// pipeline of a connection upgraded to a WebSocket.
final class MalformedRequestCatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny

    private var connectionGuard: ConnectionGuard?

    func handlerAdded(context: ChannelHandlerContext) {
        connectionGuard = try? context.pipeline.syncOperations.handler(type: ConnectionGuard.self)
    }

    func handlerRemoved(context: ChannelHandlerContext) { connectionGuard = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        switch error {
        case is HTTPParserError, is ByteToMessageDecoderError:
            connectionGuard?.malformed(error)
        default:
            context.fireErrorCaught(error)
        }
    }
}
