import NIOCore

/// The first handler of a TLS connection, before the TLS handler: lets the `ConnectionGuard` close the socket
/// itself. A close that travels through the TLS handler waits for a handshake to finish or for the peer's
/// `close_notify`, which a client that stalls on purpose never sends.
final class SocketCloser: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = NIOAny

    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// Closes input then everything, below the TLS handler.
    func closeSocket() {
        context?.close(mode: .input, promise: nil)
        context?.close(promise: nil)
    }
}
