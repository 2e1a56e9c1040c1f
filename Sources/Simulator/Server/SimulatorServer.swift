import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import ServiceLifecycle
import Synchronization

/// The APNs + FCM + OAuth look-alike behind `pushledger simulate`: one TLS port on loopback, HTTP/2 (ALPN `h2`) and
/// HTTP/1.1, serving until cancelled or gracefully shut down.
///
/// ```swift
/// let simulator = SimulatorServer(configuration: SimulatorConfiguration(port: 0))
/// let group = ServiceGroup(services: [simulator], logger: logger)
/// // elsewhere: let info = try await simulator.info(); print(info.port, info.caFile)
/// ```
public final class SimulatorServer: Service, Sendable {
    public let configuration: SimulatorConfiguration
    let engine: SimulatorEngine
    private let logger: Logger
    private let listening = Mutex(ListeningState())
    private let connections = ConnectionRegistry()

    public init(
        configuration: SimulatorConfiguration = SimulatorConfiguration(),
        logger: Logger = Logger(label: "pushledger.simulator")
    ) {
        self.configuration = configuration
        self.engine = SimulatorEngine(configuration: configuration)
        self.logger = logger
    }

    /// Serves until the task is cancelled or the service group shuts down gracefully, then lets open HTTP/2
    /// connections finish their streams (GOAWAY) for up to two seconds.
    public func run() async throws {
        let mayStart = self.listening.withLock { state -> Bool in
            guard case .idle = state.phase else { return false }
            state.phase = .starting
            return true
        }
        guard mayStart else { throw SimulatorServerError.alreadyStarted }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, self.configuration.eventLoopThreads))
        do {
            let certificates = try SimulatorCertificates.loadOrCreate(in: self.configuration.certificateDirectory)
            let channel = try await self.bind(group: group, tlsContext: try Self.makeTLSContext(certificates))
            let info = SimulatorInfo(
                host: self.configuration.host,
                port: channel.localAddress?.port ?? self.configuration.port,
                caFile: certificates.caCertificateFile
            )
            self.engine.info.withLock { $0 = info }
            for waiter in self.listening.withLock({ $0.settle(.listening(info)) }) {
                waiter.resume(returning: info)
            }
            self.logger.info(
                "simulator listening",
                metadata: ["port": "\(info.port)", "ca_file": "\(info.caFile)", "host": "\(info.host)"]
            )
            try await withTaskCancellationOrGracefulShutdownHandler {
                try await channel.closeFuture.get()
            } onCancelOrGracefulShutdown: {
                channel.close(promise: nil)
            }
            await self.connections.drain(grace: .seconds(2))
        } catch {
            for waiter in self.listening.withLock({ $0.settle(.stopped(error)) }) {
                waiter.resume(throwing: error)
            }
            try? await group.shutdownGracefully()
            throw error
        }
        for waiter in self.listening.withLock({ $0.settle(.stopped(SimulatorServerError.stopped)) }) {
            waiter.resume(throwing: SimulatorServerError.stopped)
        }
        try await group.shutdownGracefully()
        self.logger.info("simulator stopped")
    }

    /// Where the simulator listens; waits until `run()` has bound its port and throws if it failed to.
    public func info() async throws -> SimulatorInfo {
        let id = self.listening.withLock { state -> Int in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate: Result<SimulatorInfo, any Error>? = self.listening.withLock { state in
                    switch state.phase {
                    case .listening(let info): return .success(info)
                    case .stopped(let error): return .failure(error)
                    case .idle, .starting:
                        state.waiters[id] = continuation
                        return nil
                    }
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            self.listening.withLock { $0.waiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    /// The bound port (useful with `port: 0`); waits like ``info()``.
    public func boundPort() async throws -> Int {
        try await self.info().port
    }

    public func statistics() -> SimulatorStatistics {
        self.engine.statistics()
    }

    /// Forgets counts and recordings, as `POST /_sim/reset` does.
    public func reset() {
        self.engine.reset()
    }

    /// Changes the run-time settings (rules, latency, failure ratios, GOAWAY, recording); other fields are ignored.
    public func updateSettings(_ body: (inout SimulatorConfiguration) -> Void) {
        _ = try? self.engine.update { (settings) throws(RuntimeSettings.InvalidSettings) in
            var configuration = self.configuration
            settings.apply(to: &configuration)
            body(&configuration)
            settings = RuntimeSettings(configuration)
        }
    }

    private static func makeTLSContext(_ certificates: SimulatorCertificates) throws -> NIOSSLContext {
        let chain = try NIOSSLCertificate.fromPEMFile(certificates.serverCertificateFile)
        let key = try NIOSSLPrivateKey(file: certificates.serverKeyFile, format: .pem)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)
        )
        tls.applicationProtocols = ["h2", "http/1.1"]
        return try NIOSSLContext(configuration: tls)
    }

    private func bind(group: MultiThreadedEventLoopGroup, tlsContext: NIOSSLContext) async throws -> any Channel {
        let engine = self.engine
        let connections = self.connections
        let http2Settings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: self.configuration.maxConcurrentStreams),
            HTTP2Setting(parameter: .maxHeaderListSize, value: 16 * 1024),
            // Large enough that no request body needs a stream-level WINDOW_UPDATE (see HTTP2ConnectionHandler): the
            // largest body the simulator keeps, a vendor list request of 1000 ids.
            HTTP2Setting(parameter: .initialWindowSize, value: SimulatorRequest.maximumBodyBytes),
        ]
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                engine.connections.add(1, ordering: .relaxed)
                connections.add(channel)
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tlsContext))
                }.flatMap {
                    channel.configureHTTP2SecureUpgrade(
                        h2ChannelConfigurator: { channel in
                            channel.eventLoop.makeCompletedFuture {
                                let pipeline = channel.pipeline.syncOperations
                                // libcurl 7.88 resets every finished stream whose response had no body (every
                                // APNs 200). NIO's rapid-reset guard (200 resets in 30 s) would then GOAWAY the
                                // connection and libcurl would silently re-send the streams in flight, so the
                                // simulator tolerates that pattern instead of turning it into duplicates.
                                var connection = NIOHTTP2Handler.ConnectionConfiguration()
                                connection.initialSettings = http2Settings
                                var stream = NIOHTTP2Handler.StreamConfiguration()
                                stream.streamResetFrameRateLimit.maximumCount = 100_000_000
                                try pipeline.addHandler(
                                    NIOHTTP2Handler(
                                        mode: .server, connectionConfiguration: connection, streamConfiguration: stream)
                                )
                                try pipeline.addHandler(
                                    HTTP2ConnectionHandler(
                                        engine: engine, goAwayAfterStreams: engine.goAwayAfterStreams)
                                )
                            }
                        },
                        http1ChannelConfigurator: { channel in
                            channel.eventLoop.makeCompletedFuture {
                                let pipeline = channel.pipeline.syncOperations
                                try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
                                try pipeline.addHandler(HTTP1RequestHandler(engine: engine))
                            }
                        }
                    )
                }
            }
        return try await bootstrap.bind(host: self.configuration.host, port: self.configuration.port).get()
    }
}
