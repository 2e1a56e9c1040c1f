import Foundation
import PushCore
import Testing

/// Whole push histories played through `PushLifecycle` without a database: `WorkTable` carries out the
/// actions as the ledger's interpreter does (a job row, batch rows, the stream), so each test checks what a
/// push's log and work rows come to, input by input.
@Suite("Push lifecycle: whole histories without a database")
struct PushLifecycleTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func targets(_ n: Int, from first: Int = 0) -> [PushTarget] {
        (first..<first + n).map {
            PushTarget(objectId: "i\($0)", deviceType: "ios", token: "t\($0)", profile: nil, badge: nil)
        }
    }

    static func query(scheduled: Bool = false) -> PushLifecycle.Acceptance {
        PushLifecycle.Acceptance(
            request: ["where": [:]], scheduled: scheduled, sendAt: start, expiresAt: nil, listed: nil)
    }

    static func listed(_ listed: PushLifecycle.Listed) -> PushLifecycle.Acceptance {
        PushLifecycle.Acceptance(request: [:], scheduled: false, sendAt: start, expiresAt: nil, listed: listed)
    }

    static func delivered(_ batch: Int, successes: Int64) -> BatchDelivered {
        BatchDelivered(
            objectId: "p", batch: Int64(batch), at: "t", successes: successes, iosSuccesses: successes,
            androidSuccesses: 0, errors: 0, invalidTokens: 0, reasons: [:], failures: [:])
    }

    static func record(
        _ batch: Int, complete: Bool = true, handedBack: [PushTarget] = [], failure: String? = nil
    )
        -> PushLifecycle.BatchRecord
    {
        PushLifecycle.BatchRecord(
            delivered: delivered(batch, successes: 1), handedBack: handedBack, completesBatch: complete,
            pushFailure: failure)
    }

    /// A query push whose one page was cut into two batches: `sending`, both pending.
    static func sendingTwoBatches() -> WorkTable {
        var table = WorkTable()
        table.run { $0.accept(Self.query()) }
        let page = PushLifecycle.Page(
            batches: [targets(1), targets(1, from: 1)], cursor: "i1", morePages: false, stoppedAtQuota: nil)
        table.run { $0.pageTargeted(page) }
        #expect(table.job?.state == .sending && table.pendingBatches == [0, 1])
        return table
    }

    @Test("a query push over two pages: sending after the last page, done (once) with its last batch")
    func queryPush() throws {
        var table = WorkTable()
        table.run { $0.accept(Self.query()) }
        #expect(table.job?.state == .targeting)
        #expect(table.types == ["PushRequested"])
        table.run {
            $0.pageTargeted(
                .init(
                    batches: [Self.targets(2), Self.targets(2, from: 2)], cursor: "i3", morePages: true,
                    stoppedAtQuota: nil))
        }
        #expect(table.job == PushJob(state: .targeting, batches: 2, targeted: 4, cursor: "i3"))
        #expect(table.pendingBatches == [0, 1])
        // A batch recorded while targeting goes on changes nothing but the counts.
        table.record(Self.record(0))
        #expect(table.job?.state == .targeting)
        table.run { $0.pageTargeted(.init(batches: [], cursor: nil, morePages: false, stoppedAtQuota: nil)) }
        #expect(table.job?.state == .sending)
        #expect(table.job?.cursor == "i3")
        table.record(Self.record(1))
        #expect(table.job?.state == .done)
        #expect(
            table.types == [
                "PushRequested", "PushTargeted", "PushTargeted", "PushBatchDelivered", "PushTargetingCompleted",
                "PushBatchDelivered", "PushCompleted",
            ])
        guard case .targetingCompleted(let completed) = table.events[4] else { throw Unexpected() }
        #expect(completed.devices == 4 && completed.batches == 2)
        // A late duplicate record of an ended push is counted, and nothing else happens.
        table.record(Self.record(1))
        #expect(table.types.suffix(2) == ["PushCompleted", "PushBatchDelivered"])
        #expect(table.job?.state == .done)
    }

    @Test("the last page finishes the push itself when every batch was already recorded")
    func lastPageAfterEveryBatch() {
        var table = WorkTable()
        table.run { $0.accept(Self.query()) }
        table.run {
            $0.pageTargeted(.init(batches: [Self.targets(1)], cursor: "i0", morePages: true, stoppedAtQuota: nil))
        }
        table.record(Self.record(0))
        table.run { $0.pageTargeted(.init(batches: [], cursor: nil, morePages: false, stoppedAtQuota: nil)) }
        #expect(table.job?.state == .done)
        #expect(table.types.suffix(3) == ["PushBatchDelivered", "PushTargetingCompleted", "PushCompleted"])
    }

    @Test("a query stopped at the daily quota says so, and completion keeps the status open statuses only")
    func quotaStop() {
        var table = WorkTable()
        table.run { $0.accept(Self.query()) }
        table.run {
            $0.pageTargeted(.init(batches: [Self.targets(3)], cursor: "i2", morePages: false, stoppedAtQuota: 3))
        }
        #expect(table.types == ["PushRequested", "PushTargeted", "PushTargetingCompleted", "PushQuotaReached"])
        #expect(table.job?.state == .sending)
        table.record(Self.record(0))
        #expect(table.types.last == "PushCompleted")
        #expect(!PushLifecycle.openStatuses.contains(PushEvent.Status.quotaReached(3)))
        #expect(PushLifecycle.openStatuses == [PushEvent.Status.scheduled, PushEvent.Status.inQueue])
    }

    @Test("a device list is targeted as it is accepted, cut at the quota; an empty or expired one is done at once")
    func deviceLists() throws {
        var table = WorkTable()
        table.run { $0.accept(Self.listed(.targets(Self.targets(5), remaining: 3, quota: 10))) }
        #expect(table.job == PushJob(state: .sending, batches: 1, due: true))
        #expect(table.pendingBatches == [0])
        #expect(table.batchTargets[0]?.count == 3)
        #expect(
            table.types == ["PushRequested", "PushTargeted", "PushTargetingCompleted", "PushQuotaReached"])
        guard case .quotaReached(let quota) = table.events[3] else { throw Unexpected() }
        #expect(quota.quota == 10 && quota.devices == 3)
        table.record(Self.record(0))
        #expect(table.job?.state == .done && table.types.last == "PushCompleted")

        var empty = WorkTable()
        empty.run { $0.accept(Self.listed(.targets([], remaining: 3, quota: 10))) }
        #expect(empty.job?.state == .done && empty.pendingBatches.isEmpty)
        #expect(empty.types == ["PushRequested", "PushTargeted", "PushTargetingCompleted", "PushCompleted"])

        var expired = WorkTable()
        expired.run { $0.accept(Self.listed(.expired)) }
        #expect(expired.job?.state == .done && expired.types == ["PushRequested", "PushExpired"])
        #expect(PushLifecycle.expiredOnArrival(expiration: Self.start, at: Self.start))
        #expect(!PushLifecycle.expiredOnArrival(expiration: Self.start.addingTimeInterval(1), at: Self.start))
        #expect(!PushLifecycle.expiredOnArrival(expiration: nil, at: Self.start))
    }

    @Test("cancel ends a live push, cancels the batches no sender holds, and a late record only counts")
    func cancel() throws {
        var table = Self.sendingTwoBatches()
        table.leased = [0]
        table.run { $0.cancel(onlyScheduled: false, delete: false) }
        #expect(table.job?.state == .cancelled)
        #expect(table.pendingBatches == [0])
        guard case .cancelled(let cancelled) = table.events.last else { throw Unexpected() }
        #expect(cancelled.previousState == "sending" && cancelled.cancelledBatches == 1)
        let late = PushLifecycle(pushId: "p", job: table.job, at: Self.start)
        #expect(!late.acceptsOutcomes(pushFailure: nil))
        #expect(late.unsentReason == "Cancelled")
        table.record(Self.record(0))
        #expect(table.types.suffix(2) == ["PushCancelled", "PushBatchDelivered"])
        // Once ended: a second cancel is refused, a delete only removes the record.
        #expect(
            table.refusal { $0.cancel(onlyScheduled: false, delete: false) }?.code == LeanError.Code.invalidParameter)
        table.run { $0.cancel(onlyScheduled: false, delete: true) }
        #expect(table.types.last == "NotificationDeleted")
        #expect(table.job?.state == .cancelled)
    }

    @Test("a scheduled push: cancelled by its schedule id only while it is scheduled; cancel with delete appends both")
    func scheduledCancel() {
        var scheduled = WorkTable()
        scheduled.run { $0.accept(Self.query(scheduled: true)) }
        #expect(scheduled.job?.state == .scheduled && scheduled.job?.due == false)
        scheduled.run { $0.cancel(onlyScheduled: true, delete: true) }
        #expect(scheduled.types == ["PushRequested", "PushCancelled", "NotificationDeleted"])

        var targeting = WorkTable()
        targeting.run { $0.accept(Self.query()) }
        #expect(
            targeting.refusal { $0.cancel(onlyScheduled: true, delete: false) }?.code == LeanError.Code.objectNotFound)
        #expect(targeting.types == ["PushRequested"])
    }

    @Test(
        "targeting failures: retried with backoff up to the limit, then failed; an outage waits; a permanent error fails at once"
    )
    func targetingFailures() throws {
        let policy = FanOutFailurePolicy(maxAttempts: 3, baseDelay: .seconds(1), maxDelay: .seconds(60))
        var table = WorkTable()
        table.run { $0.accept(Self.query()) }
        let first = table.decide { $0.targetingFailed(kind: .transient, reason: "timeout", policy: policy, random: 0) }
        #expect(first == .retry(after: .milliseconds(500), attempts: 1))
        #expect(table.postponed == 1 && table.job?.attempts == 1)
        _ = table.decide { $0.targetingFailed(kind: .transient, reason: "timeout", policy: policy, random: 1) }
        #expect(table.job?.attempts == 2)
        let last = table.decide { $0.targetingFailed(kind: .transient, reason: "timeout", policy: policy, random: 0) }
        #expect(last == .fail(status: "failed: timeout"))
        #expect(table.job?.state == .failed && table.job?.attempts == 3)
        guard case .failed(let failed) = table.events.last else { throw Unexpected() }
        #expect(failed.stage == "targeting" && failed.reason == "timeout" && failed.status == "failed: timeout")
        // Ended: nothing more is decided.
        #expect(table.decide { $0.targetingFailed(kind: .permanent, reason: "x", policy: policy, random: 0) } == .wait)

        var outage = WorkTable()
        outage.run { $0.accept(Self.query()) }
        #expect(
            outage.decide { $0.targetingFailed(kind: .databaseUnavailable, reason: "down", policy: policy, random: 0) }
                == .wait)
        #expect(outage.job?.attempts == 0 && outage.types == ["PushRequested"])

        var permanent = WorkTable()
        permanent.run { $0.accept(Self.query()) }
        #expect(
            permanent.decide { $0.targetingFailed(kind: .permanent, reason: "bad", policy: policy, random: 0) }
                == .fail(status: "failed: bad"))
        #expect(permanent.job?.state == .failed)
    }

    @Test("a provider's push-level refusal ends the push; later records are counts only")
    func pushFailure() throws {
        var table = Self.sendingTwoBatches()
        table.leased = [1]
        table.record(Self.record(0, failure: "TopicDisallowed"))
        #expect(table.job?.state == .failed)
        #expect(table.types.suffix(2) == ["PushBatchDelivered", "PushFailed"])
        guard case .failed(let failed) = table.events.last else { throw Unexpected() }
        #expect(failed.stage == "delivery" && failed.status == "failed: TopicDisallowed")
        // The leased batch stays with its sender; its record adds no ending.
        #expect(table.pendingBatches == [1])
        table.record(Self.record(1))
        #expect(table.types.last == "PushBatchDelivered")
        #expect(PushLifecycle(pushId: "p", job: table.job, at: Self.start).unsentReason == "PushFailed")
    }

    @Test("a prod: dev push above the limit is refused before its first page")
    func devLimit() throws {
        var table = WorkTable()
        table.run { $0.accept(Self.query()) }
        #expect(PushLifecycle(pushId: "p", job: table.job, at: Self.start).needsDevAudienceCount(prod: "dev"))
        #expect(!PushLifecycle(pushId: "p", job: table.job, at: Self.start).needsDevAudienceCount(prod: "prod"))
        table.run { $0.devAudienceCounted(PushEvent.devProfileLimit) }
        #expect(table.types == ["PushRequested"])
        table.run { $0.devAudienceCounted(PushEvent.devProfileLimit + 1) }
        #expect(table.job?.state == .failed)
        guard case .failed(let failed) = table.events.last else { throw Unexpected() }
        #expect(failed.status == PushEvent.Status.devLimit && failed.devices == Int64(PushEvent.devProfileLimit + 1))
    }

    @Test("expiry ends a push not yet targeted; one being sent is not expired; purge only removes an ended push")
    func expiryAndPurge() {
        var table = WorkTable()
        table.run { $0.accept(Self.query(scheduled: true)) }
        #expect(!PushLifecycle(pushId: "p", job: table.job, at: Self.start).hasExpired)
        table.job?.expired = true
        table.run { $0.purge() }
        #expect(table.types == ["PushRequested"])
        table.run { $0.expire() }
        #expect(table.job?.state == .done && table.types == ["PushRequested", "PushExpired"])
        table.run { $0.purge() }
        #expect(table.types.last == "NotificationPurged" && table.job == nil)

        var sending = WorkTable()
        sending.run { $0.accept(Self.listed(.targets(Self.targets(1), remaining: 9, quota: 9))) }
        sending.job?.expired = true
        sending.run { $0.expire() }
        #expect(sending.job?.state == .sending && sending.types.last == "PushTargetingCompleted")
    }

    @Test("targets handed back at shutdown become the push's next batch, so the push is not done yet")
    func handBack() {
        var table = WorkTable()
        table.run { $0.accept(Self.listed(.targets(Self.targets(4), remaining: 9, quota: 9))) }
        let live = PushLifecycle(pushId: "p", job: table.job, at: Self.start)
        #expect(live.acceptsOutcomes(pushFailure: nil) && !live.acceptsOutcomes(pushFailure: "x"))
        table.record(Self.record(0, handedBack: Self.targets(2, from: 2)))
        #expect(table.job?.batches == 2 && table.pendingBatches == [1] && table.batchTargets[1]?.count == 2)
        #expect(table.job?.state == .sending && table.types.last == "PushBatchDelivered")
        table.record(Self.record(1))
        #expect(table.job?.state == .done && table.types.last == "PushCompleted")
    }

    @Test("a record of part of a batch does not finish it; own-channel results only count")
    func partsAndChannel() {
        var table = WorkTable()
        table.run { $0.accept(Self.listed(.targets(Self.targets(2), remaining: 9, quota: 9))) }
        table.record(Self.record(0, complete: false))
        #expect(table.job?.state == .sending && table.pendingBatches == [0])
        let results = ChannelResults(objectId: "p", at: "t", platforms: ["android": 1], installations: ["i0"])
        table.run { $0.channelMessagesEnded(.acknowledged, results) }
        table.run { $0.channelMessagesEnded(.dropped, results) }
        #expect(table.types.suffix(2) == ["PushChannelAcked", "PushChannelDropped"])
        #expect(table.job?.state == .sending)
    }

    @Test("every event kind reads back as the case it was written from")
    func eventsRoundTrip() throws {
        var table = WorkTable()
        table.run { $0.accept(Self.listed(.targets(Self.targets(3), remaining: 2, quota: 2))) }
        table.record(Self.record(0, failure: "Bad"))
        for event in table.events {
            #expect(try PushLogEvent(type: event.type, json: event.payload.json) == event)
        }
        #expect(try PushLogEvent(type: "InstallationCreated", json: [:]) == nil)
    }
}

struct Unexpected: Error {}

/// The work rows and the stream of one push, changed by `PushLifecycle`'s actions as the ledger's
/// interpreter changes its tables: each input gets a lifecycle made afresh from the job row, as each
/// transaction does.
struct WorkTable {
    var job: PushJob?
    var events: [PushLogEvent] = []
    var batchStates: [Int: BatchState] = [:]
    var batchTargets: [Int: [PushTarget]] = [:]
    /// Batches a sender holds (not cancelled by an ending).
    var leased: Set<Int> = []
    var postponed = 0

    var types: [String] { events.map(\.type) }
    var pendingBatches: [Int] { batchStates.filter { $0.value == .pending }.keys.sorted() }

    mutating func run(_ input: (inout PushLifecycle) -> [PushLifecycle.Action]) {
        var lifecycle = PushLifecycle(pushId: "p", job: job, at: PushLifecycleTests.start)
        let actions = input(&lifecycle)
        #expect(refusal(in: actions) == nil)
        apply(actions, &lifecycle)
    }

    /// A batch's outcomes recorded: its row is done first when every target is (`markRecorded` runs before the
    /// lifecycle is asked), then the lifecycle decides.
    mutating func record(_ record: PushLifecycle.BatchRecord) {
        let number = Int(record.delivered.batch)
        if record.completesBatch, batchStates[number] == .pending { batchStates[number] = .done }
        run { $0.batchRecorded(record) }
    }

    mutating func decide(
        _ input: (inout PushLifecycle) -> (FanOutFailurePolicy.Decision, [PushLifecycle.Action])
    ) -> FanOutFailurePolicy.Decision {
        var lifecycle = PushLifecycle(pushId: "p", job: job, at: PushLifecycleTests.start)
        let (decision, actions) = input(&lifecycle)
        apply(actions, &lifecycle)
        return decision
    }

    /// The error an input is refused with; nothing is applied.
    func refusal(_ input: (inout PushLifecycle) -> [PushLifecycle.Action]) -> LeanError? {
        var lifecycle = PushLifecycle(pushId: "p", job: job, at: PushLifecycleTests.start)
        return refusal(in: input(&lifecycle))
    }

    private func refusal(in actions: [PushLifecycle.Action]) -> LeanError? {
        for case .refuse(let error) in actions { return error }
        return nil
    }

    private mutating func apply(_ actions: [PushLifecycle.Action], _ lifecycle: inout PushLifecycle) {
        var queue = actions
        var next = 0
        var lastAppend = 0
        while next < queue.count {
            let action = queue[next]
            next += 1
            var answer: [PushLifecycle.Action] = []
            switch action {
            case .append(let appended):
                lastAppend = events.count
                events += appended
            case .insertJob(let row, _, _, _):
                job = row
            case .updateJob(let row):
                let flags = (job?.due ?? true, job?.expired ?? false)
                job = row
                (job!.due, job!.expired) = flags
            case .postpone(let attempts, _, _):
                job?.attempts = attempts
                postponed += 1
            case .endJob(let state, _, let countsAttempt):
                job?.state = state
                if countsAttempt { job?.attempts += 1 }
                let idle = pendingBatches.filter { !leased.contains($0) }
                for number in idle { batchStates[number] = .cancelled }
                answer = lifecycle.jobEnded(cancelledBatches: idle.count)
            case .insertBatch(let number, let targets):
                batchStates[number] = .pending
                batchTargets[number] = targets
            case .insertTargetedBatches(let numbers):
                for (offset, number) in numbers.enumerated() {
                    guard case .targeted(let page) = events[lastAppend + offset], page.batch == Int64(number) else {
                        Issue.record("batch \(number) has no PushTargeted event at its place")
                        continue
                    }
                    batchStates[number] = .pending
                    batchTargets[number] = page.targets
                }
            case .countPendingBatches:
                answer = lifecycle.pendingBatchesCounted(pendingBatches.count)
            case .removeWork:
                job = nil
                batchStates = [:]
            case .refuse:
                return
            }
            queue.insert(contentsOf: answer, at: next)
        }
    }
}
