import Foundation
import Ledger
import Logging
import Postgres
import PushCore
import ServiceLifecycle

/// The fan-out: one loop targets due pushes page by page, several loops lease batches, send them and record
/// their outcomes. Any number of processes may run it against one database. One push's failure never holds
/// up another: errors are recorded against that push (`FanOutFailurePolicy`), and a database outage pauses
/// the work without losing what providers already answered. The lifecycle is drawn in `docs/fanout.md`.
public struct FanOutService: Service {
    let targeting: PushTargeting
    let batches: PushBatches
    let apps: AppDirectory
    let sender: BatchSender
    let providers: ProviderRegistry
    let wakeups: WakeSignal
    let senders: Int
    let batchLease: Duration
    let owner: String
    let policy: FanOutFailurePolicy
    let held = HeldBatches()
    /// Beaten by the targeting loop each round; `/ready` reads it.
    public let heartbeat: Heartbeat
    /// The event store's clock: due times, expirations and leases are judged by it.
    let clock: ServiceClock
    let logger: Logger

    public init(
        events: EventStore, apps: AppDirectory, providers: ProviderRegistry, wakeups: WakeSignal, senders: Int = 4,
        batchLease: Duration = .seconds(30), policy: FanOutFailurePolicy = FanOutFailurePolicy(),
        logger: Logger = Logger(label: "pushledger.fanout")
    ) {
        self.targeting = PushTargeting(store: events)
        self.batches = PushBatches(store: events)
        self.apps = apps
        self.sender = BatchSender(providers: providers, logger: logger)
        self.providers = providers
        self.wakeups = wakeups
        self.senders = senders
        self.batchLease = batchLease
        self.owner = "\(ProcessInfo.processInfo.hostName)/\(getpid())/\(RandomID.make(length: 8))"
        self.policy = policy
        self.clock = events.clock
        self.heartbeat = Heartbeat(clock: events.clock)
        self.logger = logger
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask {
                await self.loop(name: "targeting") {
                    self.heartbeat.beat()
                    return try await self.targetDueJobs()
                }
            }
            for i in 0..<senders {
                group.addTask { await self.loop(name: "sender \(i)") { try await self.sendOneBatch() } }
            }
        }
        logger.info("fan-out stopped: leased batches finished and recorded")
        await providers.shutdown()
    }

    /// Repeats `work` while it finds something to do; otherwise sleeps until woken (NOTIFY) or 250 ms pass.
    /// An error (the database gone, say) backs off, doubling up to 5 s, so an outage is not a busy loop.
    private func loop(name: String, _ work: @Sendable () async throws -> Bool) async {
        var backoff = Duration.milliseconds(250)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            var busy = false
            do {
                busy = try await work()
                backoff = .milliseconds(250)
            } catch {
                logger.error("fan-out \(name) failed, retrying in \(backoff): \(error)")
                try? await clock.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(5))
            }
            if !busy { await wakeups.wait(timeout: .milliseconds(250)) }
        }
    }

    /// Targets every due push; one that fails is recorded against that push alone (moved back by a backoff,
    /// or ended with its reason), and the others go on. Only a database outage stops the round.
    func targetDueJobs() async throws -> Bool {
        let due = try await targeting.dueJobs(now: clock.now())
        for job in due {
            if Task.isShuttingDownGracefully { break }
            do {
                guard let app = try await apps.find(job.appId) else {
                    throw LeanError.invalidParameter("the app \(job.appId) no longer exists")
                }
                while !Task.isShuttingDownGracefully,
                    try await targeting.step(app: app, pushId: job.pushId, now: clock.now())
                {
                    heartbeat.beat()
                }
            } catch {
                let decision = try await targeting.recordFailure(
                    appId: job.appId, pushId: job.pushId, error: error, policy: policy, now: clock.now())
                FanOutMetrics.targetingFailure(decision)
                switch decision {
                case .wait: throw error
                case .retry(let delay, let attempts):
                    logger.warning(
                        "targeting push \(job.pushId) failed (attempt \(attempts)), retry in \(delay): \(error)",
                        metadata: ["push_id": .string(job.pushId)])
                case .fail(let status):
                    logger.error(
                        "push \(job.pushId) of app \(job.appId) ended: \(status)",
                        metadata: ["push_id": .string(job.pushId)])
                }
            }
            wakeups.signal()
        }
        return !due.isEmpty
    }

    func sendOneBatch() async throws -> Bool {
        guard let claim = try await batches.claim(owner: owner, lease: batchLease, now: clock.now()) else {
            return false
        }
        guard held.take(claim) else { return true }
        defer { held.release(claim) }
        FanOutMetrics.batchesInFlight.increment()
        defer { FanOutMetrics.batchesInFlight.decrement() }
        // Thrown (the database is unreachable): nothing was sent; the lease lapses and the batch is sent later.
        let app = try await apps.find(claim.appId)
        let gate = DispatchGate()
        let channelCap = app?.intSetting("channel.max_pending") ?? ChannelLedger.defaultCap
        let record: BatchSender.Recorder = { part, pushFailure in
            try await recordKeepingOutcomes(claim, part, pushFailure: pushFailure, channelCap: channelCap)
        }
        let summary = try await keepingLease(of: claim, gate: gate) {
            if claim.attempts > policy.maxAttempts {
                // Leased this often without its outcomes ever being recorded: give it up rather than loop.
                let reason = "batch \(claim.batchNo) could not be recorded after \(claim.attempts - 1) attempts"
                return try await sender.endWithoutSending(claim, pushFailure: reason, record: record)
            }
            guard let app else {
                return try await sender.endWithoutSending(
                    claim, pushFailure: "the app \(claim.appId) no longer exists", record: record)
            }
            if case .success(let request) = claim.request, let rate = request.flowControl {
                await waitForFlowBudget(claim, rate: rate)
            }
            return try await sender.send(claim, app: app, gate: gate, now: clock.now(), record: record)
        }
        if let failure = summary.pushFailure {
            logger.error(
                "push \(claim.pushId) of app \(claim.appId) failed: \(failure)",
                metadata: ["push_id": .string(claim.pushId)])
        }
        logOutcome(of: claim, summary)
        return true
    }

    /// Records outcomes of a batch's targets, waiting out a database outage: what the providers answered is
    /// never thrown away to be re-sent (issue 13). Gives up only on an error that is not an outage, repeated.
    func recordKeepingOutcomes(
        _ claim: BatchClaim, _ part: [(index: Int, outcome: TargetOutcome)], pushFailure: String?,
        channelCap: Int64 = ChannelLedger.defaultCap
    ) async throws -> PushBatches.RecordedPart? {
        var wait = Duration.milliseconds(100)
        var failures = 0
        let shutdownDeadline = clock.now().adding(.seconds(8))
        while true {
            do {
                let recorded = try await batches.recordPart(
                    claim, part, pushFailure: pushFailure, now: clock.now(), channelCap: channelCap)
                if let recorded {
                    let byIndex = Dictionary(part.map { ($0.index, $0.outcome) }, uniquingKeysWith: { a, _ in a })
                    FanOutMetrics.count(
                        recorded.indices.map { claim.targets[$0] }, outcomes: recorded.indices.map { byIndex[$0]! },
                        recorded: recorded.delivered)
                }
                if failures > 0 || wait > .milliseconds(100) {
                    logger.notice(
                        "recorded batch \(claim.batchNo) of push \(claim.pushId) after retrying",
                        metadata: ["push_id": .string(claim.pushId)])
                }
                return recorded
            } catch {
                let outage = FanOutError.kind(of: error) == .databaseUnavailable
                if !outage { failures += 1 }
                if failures >= policy.maxAttempts || Task.isCancelled
                    || (Task.isShuttingDownGracefully && clock.now() > shutdownDeadline)
                {
                    logger.error(
                        "cannot record batch \(claim.batchNo) of push \(claim.pushId); giving up: \(error)",
                        metadata: ["push_id": .string(claim.pushId)])
                    throw error
                }
                logger.warning(
                    "recording batch \(claim.batchNo) of push \(claim.pushId) failed, retrying: \(error)",
                    metadata: ["push_id": .string(claim.pushId)])
                try? await clock.sleep(for: wait)
                wait = min(wait * 2, .seconds(2))
            }
        }
    }

    /// One line per batch that had provider errors or retries (a clean batch logs at debug), with the push id
    /// and the error counts by reason: enough to tell bad tokens from provider trouble without a line per device.
    func logOutcome(of claim: BatchClaim, _ summary: BatchSender.Summary) {
        let (recorded, retries) = (summary, summary.retries)
        let level: Logger.Level = recorded.errors > 0 || retries > 0 ? .notice : .debug
        let reasons = recorded.reasons.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let detail = reasons.isEmpty ? "" : " (\(reasons.joined(separator: ", ")))"
        logger.log(
            level: level,
            """
            batch \(claim.batchNo) of push \(claim.pushId): \(recorded.successes) delivered, \
            \(recorded.errors) errors\(detail), \(retries) retries
            """,
            metadata: [
                "push_id": .string(claim.pushId), "app_id": .string(claim.appId),
                "batch": .stringConvertible(claim.batchNo), "retries": .stringConvertible(retries),
            ])
    }

    /// `flow_control`: waits for this batch's share of the push's budget, kept in the database so that it
    /// holds across every process sending the push.
    func waitForFlowBudget(_ claim: BatchClaim, rate: Int) async {
        do {
            let starts = try await batches.reserveFlow(
                appId: claim.appId, pushId: claim.pushId, count: claim.targets.count, rate: rate)
            let delay = starts.timeIntervalSince(clock.now())
            if delay > 0 { try await clock.sleep(for: .milliseconds(Int64(min(delay, 3600) * 1000))) }
        } catch {
            logger.warning(
                "flow control of push \(claim.pushId) unavailable, sending unthrottled: \(error)",
                metadata: ["push_id": .string(claim.pushId)])
        }
    }

    /// Runs `work` while renewing the claim's lease every third of its length (only a dead process's batch
    /// waits out its lease and is re-sent by another, never a live one that is merely slow), and watching the
    /// push's job: once it is cancelled or has failed, the gate closes and nothing new is dispatched.
    func keepingLease<T: Sendable>(
        of claim: BatchClaim, gate: DispatchGate, _ work: () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                while (try? await self.clock.sleep(for: self.batchLease / 3)) != nil {
                    do {
                        guard try await self.batches.renew(claim, lease: self.batchLease, now: self.clock.now()) else {
                            self.logger.notice(
                                "batch \(claim.batchNo) of push \(claim.pushId) was taken over or ended",
                                metadata: ["push_id": .string(claim.pushId)])
                            return
                        }
                    } catch {
                        // The next renewal may get through; if none does, the lease lapses as for a dead sender.
                        self.logger.warning(
                            "cannot renew the lease of push \(claim.pushId) batch \(claim.batchNo): \(error)",
                            metadata: ["push_id": .string(claim.pushId)])
                    }
                }
            }
            group.addTask {
                while gate.isOpen, (try? await self.clock.sleep(for: .milliseconds(200))) != nil {
                    guard let state = try? await self.batches.jobState(appId: claim.appId, pushId: claim.pushId),
                        state == .cancelled || state == .failed
                    else { continue }
                    self.logger.info(
                        "push \(claim.pushId) is \(state.rawValue): dispatching stops",
                        metadata: ["push_id": .string(claim.pushId)])
                    gate.stop(.jobEnded(state))
                }
            }
            defer { group.cancelAll() }
            return try await work()
        }
    }
}
