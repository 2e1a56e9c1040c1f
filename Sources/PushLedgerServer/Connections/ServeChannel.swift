import DeviceChannel
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket
import PushCore

/// The child channel of `serve`'s port: HTTP/1.1 for the API and the console, and the WebSocket upgrade of
/// the own device channel, every connection held to the bounds of SPEC §12.8 (a `ConnectionGuard` first,
/// after TLS when the port speaks it, and a `MalformedRequestCatcher` right after the request decoder).
/// HTTP connections are served by Hummingbird's request loop. An upgraded device connection is handed to
/// the device channel's NIO handler and leaves no task behind: it costs only its handlers' state while idle.
struct ServeChannel: ServerChildChannel, HTTPChannelHandler {
    enum Connection: Sendable {
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case device
    }

    struct Value: ServerChildChannelValue {
        let connection: EventLoopFuture<Connection>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let devices: DeviceChannel
    let limits: ConnectionLimits
    /// The port speaks TLS: the handshake is timed as a request.
    let tls: Bool

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            // The TLS handler, when the port speaks TLS, is in the pipeline already: the closer goes before it.
            if tls { try pipeline.addHandler(SocketCloser(), position: .first) }
            try pipeline.addHandler(ConnectionGuard(limits: limits, handshaking: tls))
            let upgrade = NIOTypedHTTPServerUpgradeConfiguration<Connection>(
                upgraders: [deviceUpgrader()],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try pipeline.addHandler(RequestPhaseObserver())
                        // Hummingbird's: closes idle keep-alive connections when the server shuts down.
                        try pipeline.addHandler(HTTPConnectionStateHandler(logger: logger))
                        return .http(
                            try NIOAsyncChannel(
                                wrappingChannelSynchronously: channel,
                                configuration: .init(isOutboundHalfClosureEnabled: true)))
                    }
                })
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: upgrade)
            configuration.enablePipelining = false  // Hummingbird's loop reads one request at a time
            configuration.enableErrorHandling = false  // MalformedRequestCatcher and the guard answer
            configuration.enableResponseHeaderValidation = false  // swift-http-types validates them
            let connection = try pipeline.configureUpgradableHTTPServerPipeline(configuration: configuration)
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(MalformedRequestCatcher(), position: .after(decoder))
            return Value(connection: connection, channel: channel)
        }
    }

    /// Upgrades requests for `/channel`: the admission is decided (credentials, then the channel cap) before
    /// the 101 goes out, and the upgraded connection gets the handler for that decision. A request naming a
    /// LeanCloud SDK subprotocol gets it echoed (the Android SDK aborts a handshake without it) and is served
    /// in that dialect.
    private func deviceUpgrader() -> NIOTypedWebSocketServerUpgrader<Connection> {
        let decided = NIOLockedValueBox<(DeviceChannel.Admission, SDKFraming?)?>(nil)
        let devices = self.devices
        return NIOTypedWebSocketServerUpgrader<Connection>(
            maxFrameSize: DeviceFrameHandlerLimits.maxFrameBytes,
            shouldUpgrade: { channel, head in
                let promise = channel.eventLoop.makePromise(of: HTTPHeaders?.self)
                promise.completeWithTask {
                    let framing = SDKFraming.requested(in: head.headers.first(name: "sec-websocket-protocol"))
                    guard
                        var admission = await devices.admission(
                            target: head.uri, authorization: head.headers.first(name: "authorization"),
                            framing: framing)
                    else { return nil }
                    if admission.servesDevice, !(await ConnectionGuard.becomeChannel(channel)) {
                        admission = .refused(
                            LeanError.invalidParameter(
                                "Too many device connections; retry with backoff.", kind: .unavailable))
                    }
                    decided.withLockedValue { $0 = (admission, framing) }
                    var headers = HTTPHeaders()
                    if let framing { headers.add(name: "Sec-WebSocket-Protocol", value: framing.rawValue) }
                    return headers
                }
                return promise.futureResult
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    guard let decision = decided.withLockedValue({ $0 }) else {
                        throw ChannelError.inappropriateOperationForState
                    }
                    try channel.pipeline.syncOperations.addHandler(
                        devices.handler(for: decision.0, framing: decision.1))
                    return .device
                }
            })
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.connection.get() {
            case .http(let http): await handleHTTP(asyncChannel: http, logger: logger)
            case .device: break  // served by its NIO handler until it closes
            }
        } catch {
            // The connection went before its first request was read (closed by the guard, or by the client).
            logger.trace("connection ended before a request: \(error)")
        }
    }
}
