import Foundation
import Ledger
import Logging
import ServiceLifecycle

/// Runs the retention job inside `serve` (SPEC §8): soon after start, then every `interval`. Safe next to
/// other processes doing the same, since every step re-checks under its stream locks.
struct RetentionService: Service {
    let job: RetentionJob
    let interval: Duration
    let logger: Logger

    func run() async throws {
        // A short delay so a restart storm does not run it on every start before serving.
        try? await Task.sleep(for: .seconds(5))
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let report = try await job.run()
                logger.info("retention: \(report.json.encoded())")
            } catch {
                logger.error("retention failed: \(error)")
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
