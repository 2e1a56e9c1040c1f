import PushCore
import ServiceLifecycle

/// The loop of `serve`'s housekeeping services: a first run soon after start, then one every `interval`, until
/// graceful shutdown. The waits are cancelled by shutdown, so a SIGTERM is never held up by them.
enum Periodically {
    static func run(
        after delay: Duration, every interval: Duration, on clock: ServiceClock, _ step: () async -> Void
    ) async {
        try? await cancelWhenGracefulShutdown { try await clock.sleep(for: delay) }
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            await step()
            try? await cancelWhenGracefulShutdown { try await clock.sleep(for: interval) }
        }
    }
}
