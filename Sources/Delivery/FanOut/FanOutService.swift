import Foundation
import Ledger
import Logging
import PushCore
import ServiceLifecycle

/// The fan-out: one loop targets due pushes page by page, several loops lease batches, send them and record
/// their outcomes. Any number of processes may run it against one database.
public struct FanOutService: Service {
    let targeting: PushTargeting
    let batches: PushBatches
    let apps: AppStore
    let sender: BatchSender
    let providers: ProviderRegistry
    let wakeups: WakeSignal
    let senders: Int
    let batchLease: Duration
    let owner: String
    let logger: Logger

    public init(events: EventStore, apps: AppStore, providers: ProviderRegistry, wakeups: WakeSignal, senders: Int = 4,
        batchLease: Duration = .seconds(30),
        logger: Logger = Logger(label: "pushledger.fanout")) {
        self.targeting = PushTargeting(store: events)
        self.batches = PushBatches(store: events)
        self.apps = apps
        self.sender = BatchSender(providers: providers, logger: logger)
        self.providers = providers
        self.wakeups = wakeups
        self.senders = senders
        self.batchLease = batchLease
        self.owner = "\(ProcessInfo.processInfo.hostName)/\(getpid())/\(RandomID.make(length: 8))"
        self.logger = logger
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.loop(name: "targeting") { try await self.targetDueJobs() } }
            for i in 0..<senders {
                group.addTask { await self.loop(name: "sender \(i)") { try await self.sendOneBatch() } }
            }
        }
        await providers.shutdown()
    }

    /// Repeats `work` while it finds something to do; otherwise sleeps until woken (NOTIFY) or 250 ms pass.
    private func loop(name: String, _ work: @Sendable () async throws -> Bool) async {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            var busy = false
            do {
                busy = try await work()
            } catch {
                logger.error("fan-out \(name) failed: \(error)")
                try? await Task.sleep(for: .milliseconds(500))
            }
            if !busy { await wakeups.wait(timeout: .milliseconds(250)) }
        }
    }

    func targetDueJobs() async throws -> Bool {
        let due = try await targeting.dueJobs(now: Date())
        for job in due {
            guard let app = try await apps.find(job.appId) else { continue }
            while !Task.isShuttingDownGracefully, try await targeting.step(app: app, pushId: job.pushId) {}
            wakeups.signal()
        }
        return !due.isEmpty
    }

    func sendOneBatch() async throws -> Bool {
        guard let claim = try await batches.claim(owner: owner, lease: batchLease) else { return false }
        guard let app = try await apps.find(claim.appId) else { return true }
        let outcomes = await keepingLease(of: claim) { await sender.send(claim, app: app) }
        try await batches.record(claim, outcomes: outcomes)
        return true
    }

    /// Runs `work` while renewing the claim's lease every third of its length: only a dead process's batch
    /// waits out its lease and is re-sent by another, never a live one that is merely slow.
    func keepingLease<T: Sendable>(of claim: BatchClaim, _ work: () async -> T) async -> T {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while (try? await Task.sleep(for: self.batchLease / 3)) != nil {
                    do {
                        guard try await self.batches.renew(claim, lease: self.batchLease) else {
                            self.logger.notice("batch \(claim.batchNo) of push \(claim.pushId) was taken over or ended")
                            return
                        }
                    } catch {
                        // The next renewal may get through; if none does, the lease lapses as for a dead sender.
                        self.logger.warning("cannot renew the lease of push \(claim.pushId) batch \(claim.batchNo): \(error)")
                    }
                }
            }
            let value = await work()
            group.cancelAll()
            return value
        }
    }
}
