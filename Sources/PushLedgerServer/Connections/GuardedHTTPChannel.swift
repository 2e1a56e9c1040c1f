import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's child channel (HTTP/1.1 with the device channel's WebSocket upgrade) with the connection
/// bounds of SPEC §12.8 around it: a `ConnectionGuard` first (after TLS, when the port speaks it) and a
/// `MalformedRequestCatcher` right after the request decoder.
struct GuardedHTTPChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let limits: ConnectionLimits
    /// The port speaks TLS: the handshake is timed as a request.
    let tls: Bool

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            // The TLS handler, when the port speaks TLS, is in the pipeline already: the closer goes before it.
            if tls { try channel.pipeline.syncOperations.addHandler(SocketCloser(), position: .first) }
            try channel.pipeline.syncOperations.addHandler(ConnectionGuard(limits: limits, handshaking: tls))
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(MalformedRequestCatcher(), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
