import Foundation
import Ledger
import Logging
import Metrics
import PushCore
import ServiceLifecycle

/// Runs the retention job inside `serve` (SPEC §8): soon after start, then every `interval`. Safe next to
/// other processes doing the same, since every step re-checks under its stream locks.
struct RetentionService: Service {
    let job: RetentionJob
    let interval: Duration
    let clock: ServiceClock
    let logger: Logger

    func run() async throws {
        // A short delay so a restart storm does not run it on every start before serving.
        await Periodically.run(after: .seconds(5), every: interval, on: clock) {
            do {
                let report = try await job.run()
                logger.info("retention: \(report.json.encoded())")
                Counter(label: "pushledger_retention_runs_total", dimensions: [("result", "ok")]).increment()
                for (kind, count) in [
                    ("expired_installations", report.expiredInstallations), ("purged_pushes", report.purgedPushes),
                    ("expired_scheduled", report.expiredScheduled), ("closed_days", report.closedDays),
                    ("dropped_log_partitions", report.droppedLogPartitions),
                ] {
                    Counter(label: "pushledger_retention_items_total", dimensions: [("kind", kind)]).increment(
                        by: Int64(count))
                }
            } catch {
                logger.error("retention failed: \(error)")
                Counter(label: "pushledger_retention_runs_total", dimensions: [("result", "error")]).increment()
            }
        }
    }
}
