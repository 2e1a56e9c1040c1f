import API
import Console
import Delivery
import DeviceChannel
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Ledger
import Logging
import Postgres
import PushCore
import Reports
import ServiceLifecycle

/// The composition root of `serve`: every long-lived part is a `Service` in one `ServiceGroup`, shut down
/// gracefully on SIGTERM/SIGINT.
public enum PushLedgerServer {
    /// Runs until a signal arrives. `onListening` receives the bound port (useful with port 0).
    public static func run(
        _ config: ServerConfiguration, logger: Logger, onListening: @escaping @Sendable (Int) -> Void
    )
        async throws
    {
        _ = Observability.registry
        // Read before anything starts: a bad certificate path stops `serve` at once, naming the file.
        let tls = try config.tls?.configuration()
        let ledger = LedgerComponents(
            databaseURL: config.databaseURL, maxConnections: config.maxConnections, logger: logger)
        try await LedgerMigrations.migrate(pool: ledger.pool)
        do {
            try await EventLogPartitions(pool: ledger.pool).prepare()
        } catch {
            // Not fatal: rows without a day partition land in the default one, and the retention job
            // (or the next start) makes the partitions and moves them.
            logger.warning("cannot prepare the event log's day partitions: \(error)")
        }
        // Everything that reads the time or waits does it on the event store's clock.
        let clock = ledger.events.clock
        let wakeups = WakeSignal(clock: clock)
        let fanOut = FanOutService(
            events: ledger.events, apps: ledger.appDirectory,
            providers: ProviderRegistry(transport: config.transport, clock: clock, logger: logger),
            wakeups: wakeups,
            senders: config.senders, batchLease: config.batchLease, logger: logger)
        var channelConfiguration = config.channel
        channelConfiguration.secure = tls != nil
        let channel = DeviceChannel(
            apps: ledger.appDirectory, ledger: ChannelLedger(store: ledger.events), configuration: channelConfiguration,
            logger: logger)
        let reports = ReportRunner(pool: ledger.pool)
        let router = APIRouter.make(
            ledger: ledger, reports: reports, channel: ChannelRoutes(channel: channel),
            presence: PresenceRoutes(channel: channel, installations: ledger.installationQueries),
            operations: Observability.routes(ledger: ledger, fanOut: fanOut, metricsToken: config.metricsToken))
        // The web console shares the router (request ids, logs, metrics) but is HTML for people, not REST.
        let console = try await ConsoleRoutes.make(
            services: ConsoleServices(ledger: ledger, reports: reports, channel: channel, secureCookies: tls != nil),
            clock: clock)
        console.register(on: router)
        // One port for REST and devices: upgrade requests for `/channel` become WebSockets, every other
        // request goes on to the router. With TLS configured, both are served over it. Every connection is
        // held to the bounds of SPEC §12.8 (`GuardedHTTPChannel`).
        let limits = ConnectionLimits(DescriptorLimit.fit(config.connections, logger: logger), logger: logger)
        let http = HTTPServerBuilder { responder in
            ServeChannel(responder: responder, devices: channel, limits: limits, tls: tls != nil)
        }
        let server = try tls.map { try HTTPServerBuilder.tls(http, tlsConfiguration: $0) }
        let app = Application(
            router: router, server: server ?? http,
            configuration: .init(address: .hostname(config.host, port: config.port), serverName: "PushLedger"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? config.port) },
            logger: logger)
        let listener = NotificationWakeService(url: config.databaseURL, signal: wakeups)
        let sampler = BacklogSampler(
            batches: PushBatches(store: ledger.events), interval: .seconds(5), clock: clock, logger: logger)
        var services: [any Service] = [
            app, listener, fanOut, sampler, ConnectionReportService(report: limits.report, clock: clock),
        ]
        if let interval = config.retentionInterval {
            services.append(
                RetentionService(
                    job: RetentionJob(store: ledger.events, logRetentionDays: config.logRetentionDays),
                    interval: interval, clock: clock, logger: logger))
        }
        services.append(
            FieldIndexService(
                indexes: FieldIndexes(pool: ledger.pool), interval: .seconds(30), clock: clock, logger: logger))
        services += channel.services(databaseURL: config.databaseURL, logger: logger)
        services += ledger.projectorRunners(wakeups: wakeups)
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
        await ledger.pool.close()
    }
}

/// Forwards PostgreSQL NOTIFYs about new events to the workers waiting for them.
struct NotificationWakeService: Service, CustomStringConvertible {
    let url: String
    let signal: WakeSignal

    /// What service-lifecycle logs for it: never the database URL, which may hold a password.
    var description: String { "NotificationWakeService" }

    func run() async throws {
        let listener = PGListener(url: url, channels: [EventStore.notifyChannel])
        await withGracefulShutdownHandler {
            for await _ in listener.notifications().cancelOnGracefulShutdown() {
                signal.signal()
            }
        } onGracefulShutdown: {
            listener.stop()
        }
    }
}
