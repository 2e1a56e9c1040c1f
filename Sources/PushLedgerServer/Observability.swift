import API
import Delivery
import Foundation
import Ledger
import Logging
import Metrics
import Postgres
import Prometheus
import PushCore
import ServiceLifecycle

/// `serve`'s metrics backend and readiness checks.
enum Observability {
    /// The registry `/metrics` renders. swift-metrics takes one backend per process, so it is bootstrapped
    /// once, however many times `run` is called (tests run the server in-process more than once).
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5),
            .seconds(10),
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }()

    static func routes(ledger: LedgerComponents, fanOut: FanOutService, metricsToken: String?) -> OperationsRoutes {
        let registry = Self.registry
        return OperationsRoutes(
            readiness: [
                ReadinessCheck(name: "postgres") {
                    do {
                        _ = try await ledger.pool.query("SELECT 1 AS one")
                        return nil
                    } catch {
                        return "unreachable: \(error)"
                    }
                },
                ReadinessCheck(name: "migrations") { await migrationProblem(ledger.pool) },
                // The targeting loop wakes at least every 250 ms, and backs off at most 5 s in an outage.
                ReadinessCheck(name: "fanout") { fanOut.heartbeat.problem(limit: .seconds(15)) },
            ],
            renderMetrics: { registry.emitToBuffer() }, metricsToken: metricsToken)
    }

    /// Nil when every migration this binary ships is applied, else which are missing.
    static func migrationProblem(_ pool: PGPool) async -> String? {
        do {
            let shipped = Set(try LedgerMigrations.all().map(\.version))
            let applied = Set(
                try await pool.query("SELECT version FROM schema_migrations").map { try $0.int("version") })
            let missing = shipped.subtracting(applied).sorted()
            return missing.isEmpty ? nil : "not applied: \(missing.map(String.init).joined(separator: ", "))"
        } catch {
            return "cannot read schema_migrations: \(error)"
        }
    }
}

/// Samples the fan-out backlog into gauges every few seconds (the work tables are the truth; counting them
/// is cheaper than keeping counters in step across processes).
struct BacklogSampler: Service {
    let batches: PushBatches
    let interval: Duration
    let clock: ServiceClock
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let backlog = try await batches.backlog()
                Gauge(label: "pushledger_fanout_due_jobs").record(backlog.dueJobs)
                Gauge(label: "pushledger_fanout_oldest_due_job_age_seconds").record(backlog.oldestDueSeconds)
                Gauge(label: "pushledger_fanout_scheduled_jobs").record(backlog.scheduledJobs)
                Gauge(label: "pushledger_fanout_pending_batches").record(backlog.pendingBatches)
            } catch {
                logger.debug("backlog sample failed: \(error)")
            }
            try? await cancelWhenGracefulShutdown { try await clock.sleep(for: interval) }
        }
    }
}
