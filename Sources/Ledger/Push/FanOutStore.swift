import Foundation
import Postgres
import PushCore

/// The fan-out's work tables, `push_jobs` and `push_batches`: the only code that reads or writes them.
/// Every state change goes through `JobState.after(_:)`, the pure transition function, and is written in
/// the transaction that appends the events describing it (the callers hold the push stream's lock), so work
/// and log can never disagree after a crash.
enum FanOutStore {
    // MARK: Jobs

    static func insertJob(
        appId: String, pushId: String, state: JobState, sendAt: Date, expiresAt: Date?, request: JSON, batches: Int,
        on db: some PGQuerying
    ) async throws {
        try await db.query(
            """
            INSERT INTO push_jobs (app_id, push_id, state, send_at, expires_at, request, batches)
            VALUES (\(appId), \(pushId), \(state), \(sendAt)::timestamptz, \(expiresAt)::timestamptz,
                    \(request)::jsonb, \(batches))
            """)
    }

    static func state(appId: String, pushId: String, on db: some PGQuerying) async throws -> JobState? {
        try await db.query(.reusingPlan("SELECT state FROM push_jobs WHERE app_id = \(appId) AND push_id = \(pushId)"))
            .first?["state"].flatMap(JobState.init(rawValue:))
    }

    /// How many pushes of the app wait for their time (`max_scheduled`).
    static func scheduledCount(appId: String, on db: some PGQuerying) async throws -> Int {
        try await db.query(
            "SELECT count(*) AS n FROM push_jobs WHERE app_id = \(appId) AND state = \(JobState.scheduled)"
        )[0].int("n")
    }

    static func scheduledPushId(appId: String, scheduleId: Int64, on db: some PGQuerying) async throws -> String? {
        try await db.query(
            """
            SELECT push_id FROM push_jobs
            WHERE app_id = \(appId) AND schedule_id = \(scheduleId) AND state = \(JobState.scheduled)
            """
        ).first?["push_id"]
    }

    struct ScheduledJob {
        let scheduleId: Int64
        let sendAt: Date
        let request: JSON
        let createdAt: Date
    }

    static func scheduledJobs(appId: String, on db: some PGQuerying) async throws -> [ScheduledJob] {
        try await db.query(
            """
            SELECT schedule_id, send_at, request, created_at FROM push_jobs
            WHERE app_id = \(appId) AND state = \(JobState.scheduled) ORDER BY send_at, schedule_id
            """
        ).map {
            ScheduledJob(
                scheduleId: try $0.int64("schedule_id"), sendAt: try $0.date("send_at"),
                request: try $0.json("request"),
                createdAt: try $0.date("created_at"))
        }
    }

    /// Pushes whose time has come and which still need targeting. A job that failed waits out its backoff
    /// (its `send_at` moved), so it never stands in front of the others.
    static func dueJobs(now: Date, limit: Int, on db: some PGQuerying) async throws -> [(appId: String, pushId: String)]
    {
        // The states are SQL literals, not parameters: only then can a generic plan prove the partial index
        // push_jobs_due's predicate (they are JobState.due).
        try await db.query(
            .reusingPlan(
                """
                SELECT app_id, push_id FROM push_jobs
                WHERE state IN ('scheduled', 'targeting') AND send_at <= \(now)::timestamptz
                ORDER BY send_at LIMIT \(limit)
                """)
        ).map { (try $0.string("app_id"), try $0.string("push_id")) }
    }

    /// A job as the targeting step reads it.
    struct TargetingJob {
        let state: JobState
        /// `send_at` has come; compared in SQL, where both instants have the same microsecond precision.
        let due: Bool
        let expired: Bool
        let request: JSON
        /// The last installation targeted (keyset pagination).
        let cursor: String?
        let batches: Int
        let targeted: Int64
        let attempts: Int
        /// When the reading transaction began (`now()`), as PostgreSQL prints it: every event the transaction
        /// appends is recorded at or after it (`recorded_at` defaults to `clock_timestamp()`).
        let transactionStart: String
    }

    static func targetingJob(
        appId: String, pushId: String, now: Date, on db: some PGQuerying
    ) async throws
        -> TargetingJob?
    {
        guard
            let row = try await db.query(
                .reusingPlan(
                    """
                    SELECT state, send_at <= \(now)::timestamptz AS due, expires_at <= \(now)::timestamptz AS expired,
                        request, cursor_object_id, batches, targeted, attempts, now()::text AS transaction_start
                    FROM push_jobs WHERE app_id = \(appId) AND push_id = \(pushId)
                    """)
            ).first,
            let state = row["state"].flatMap(JobState.init(rawValue:))
        else { return nil }
        return TargetingJob(
            state: state, due: row["due"] == "t", expired: row["expired"] == "t", request: try row.json("request"),
            cursor: row["cursor_object_id"], batches: try row.int("batches"), targeted: try row.int64("targeted"),
            attempts: try row.int("attempts"), transactionStart: try row.string("transaction_start"))
    }

    /// Records a targeted page: the cursor moves and the job goes where `JobState.after` says.
    /// `addsBatch`: the page has targets, whose batch the caller inserts after the page's events
    /// (`insertTargetedBatch`), so it is pending although not in the table yet.
    static func recordPage(
        appId: String, pushId: String, from job: TargetingJob, morePages: Bool, addsBatch: Bool, cursor: String?,
        batches: Int, targeted: Int64, on db: some PGQuerying
    ) async throws -> JobState {
        // While pages remain the job stays `targeting` whatever is pending: count only after the last page.
        let pending =
            (morePages || addsBatch) ? true : try await pendingBatches(appId: appId, pushId: pushId, on: db) > 0
        let next = try transition(job.state, .pageTargeted(morePages: morePages, batchesPending: pending))
        try await db.query(
            .reusingPlan(
                """
                UPDATE push_jobs SET state = \(next), cursor_object_id = \(cursor), batches = \(batches), targeted = \(targeted)
                WHERE app_id = \(appId) AND push_id = \(pushId)
                """))
        return next
    }

    /// Moves a job by `event` when it applies; returns the new state, or nil when it did not apply.
    @discardableResult
    static func advance(
        appId: String, pushId: String, from state: JobState, by event: JobEvent, on db: some PGQuerying
    )
        async throws -> JobState?
    {
        guard let next = state.after(event) else { return nil }
        if next != state {
            try await db.query(
                .reusingPlan(
                    "UPDATE push_jobs SET state = \(next) WHERE app_id = \(appId) AND push_id = \(pushId) AND state = \(state)"
                ))
        }
        return next
    }

    /// Targeting failed and is tried again at `until`.
    static func postpone(
        appId: String, pushId: String, from state: JobState, attempts: Int, reason: String, until: Date,
        on db: some PGQuerying
    ) async throws {
        _ = try transition(state, .retryLater)
        try await db.query(
            """
            UPDATE push_jobs SET attempts = \(attempts), last_error = \(reason), send_at = \(until)::timestamptz
            WHERE app_id = \(appId) AND push_id = \(pushId)
            """)
    }

    /// Ends a job for good (`event` is `.cancelled` or `.failed`): the batches no sender holds are cancelled;
    /// a leased one is finished by its sender, which stops dispatching once it sees the job ended. Returns
    /// how many batches it cancelled, or nil when the job had already ended.
    @discardableResult
    static func end(
        appId: String, pushId: String, from state: JobState, by event: JobEvent, reason: String?,
        countsAttempt: Bool = false,
        now: Date, on db: some PGQuerying
    ) async throws -> Int? {
        guard let next = state.after(event) else { return nil }
        let cancelled = try await db.query(
            """
            UPDATE push_batches SET state = \(batchTransition(.jobEnded(leaseLapsed: true)))
            WHERE app_id = \(appId) AND push_id = \(pushId) AND state = \(BatchState.pending)
              AND (claimed_until IS NULL OR claimed_until < \(now)::timestamptz)
            """
        ).affectedRows
        try await db.query(
            """
            UPDATE push_jobs SET state = \(next), last_error = coalesce(\(reason), last_error),
                attempts = attempts + \(countsAttempt ? 1 : 0)
            WHERE app_id = \(appId) AND push_id = \(pushId)
            """)
        return cancelled
    }

    /// `flow_control` (SPEC §4.1): reserves `count` devices of the push's per-second budget, kept in the
    /// database so that every process sending the push shares one budget. Returns when the reserved slot
    /// starts (now or later), by the database's clock.
    static func reserveFlow(
        appId: String, pushId: String, count: Int, rate: Int, on db: some PGQuerying
    )
        async throws -> Date?
    {
        let seconds = Double(count) / Double(max(rate, 1))
        return try await db.query(
            """
            UPDATE push_jobs SET flow_next_at = greatest(flow_next_at, clock_timestamp())
                + make_interval(secs => \(seconds))
            WHERE app_id = \(appId) AND push_id = \(pushId)
            RETURNING flow_next_at - make_interval(secs => \(seconds)) AS starts
            """
        ).first?.date("starts")
    }

    // MARK: Batches

    /// `JobState.sendable` as SQL literals, for the claim.
    private static let sendableStates = JobState.sendable.map { "'\($0.rawValue)'" }.joined(separator: ", ")

    /// The batch of a targeting page, its targets copied from the page's `PushTargeted` event (the stream's
    /// `version`, appended earlier in the same transaction) rather than sent and parsed a second time: the
    /// list is most of a page's bytes.
    ///
    /// `recordedSince`, the transaction's start (`TargetingJob.transactionStart`), keeps the lookup to the
    /// newest day partitions: the event was recorded after it. It is an untyped parameter cast to
    /// `timestamptz`, so each execution is planned for its value and prunes while planning. Written as
    /// `now()` the bound was known only when the statement ran: every plan covered every partition the log
    /// keeps, so the statement had to keep one generic plan, which a connection makes afresh every ten
    /// seconds and which names, and so locks, every partition: its cost grew with every day the log keeps
    /// (docs/decisions.md, "The batch row's copy is bounded by its transaction's start").
    static func insertTargetedBatch(
        appId: String, pushId: String, number: Int, stream: String, version: Int, recordedSince: String,
        on db: some PGQuerying
    )
        async throws
    {
        let inserted = try await db.query(
            """
            INSERT INTO push_batches (app_id, push_id, batch_no, targets)
            SELECT app_id, \(pushId), \(number), data -> 'targets' FROM events
            WHERE app_id = \(appId) AND stream = \(stream) AND version = \(version)
              AND recorded_at >= \(recordedSince)::timestamptz AND type = \(PushEvent.targeted)
            RETURNING batch_no
            """)
        guard inserted.count == 1 else { throw TargetedEventMissing(stream: stream, version: version) }
    }

    /// The page's `PushTargeted` event was not where its batch looked for it (never expected to happen: the
    /// transaction fails rather than queue a batch without targets).
    struct TargetedEventMissing: Error, CustomStringConvertible {
        let stream: String
        let version: Int
        var description: String { "no PushTargeted event at \(stream) version \(version) for its batch" }
    }

    /// A batch of targets held in memory (a sender's hand-back).
    static func insertBatch(
        appId: String, pushId: String, number: Int, targets: [PushTarget], on db: some PGQuerying
    )
        async throws
    {
        let json = JSON.array(targets.map(\.json))
        try await db.query(
            """
            INSERT INTO push_batches (app_id, push_id, batch_no, targets)
            VALUES (\(appId), \(pushId), \(number), \(json)::jsonb)
            """)
    }

    /// Queues `targets` again as the push's next batch (a sender shutting down hands back what it did not send).
    static func handBack(appId: String, pushId: String, targets: [PushTarget], on db: some PGQuerying) async throws {
        let number = try await db.query(
            """
            UPDATE push_jobs SET batches = batches + 1 WHERE app_id = \(appId) AND push_id = \(pushId)
            RETURNING batches - 1 AS n
            """)[0].int("n")
        try await insertBatch(appId: appId, pushId: pushId, number: number, targets: targets, on: db)
    }

    /// Batches of the push still to be recorded. Every batch's record counts them, so the statement keeps its
    /// generic plan (the primary key's range, whatever the values) rather than being planned for each batch.
    static func pendingBatches(appId: String, pushId: String, on db: some PGQuerying) async throws -> Int {
        try await db.query(
            .reusingPlan(
                """
                SELECT count(*) AS n FROM push_batches
                WHERE app_id = \(appId) AND push_id = \(pushId) AND state = \(BatchState.pending)
                """)
        )[0].int("n")
    }

    /// Leases the oldest pending batch of a push that is still being sent. `'pending'` and the sendable job
    /// states are SQL literals, not parameters, so that its generic plan can use the partial index
    /// push_batches_pending and estimates the sendable jobs from the statistics, as a plan for the values
    /// does: it is kept (`reusingPlan`) instead of being planned for each batch. A batch whose job
    /// was cancelled or failed is never handed out, even when its earlier sender died holding it.
    static func claim(owner: String, until: Date, now: Date, on db: some PGQuerying) async throws -> BatchClaim? {
        guard
            let row = try await db.query(
                .reusingPlan(
                    """
                    UPDATE push_batches b SET claimed_by = \(owner), claimed_until = \(until)::timestamptz,
                        attempts = b.attempts + 1
                    FROM (SELECT b2.app_id, b2.push_id, b2.batch_no FROM push_batches b2
                          JOIN push_jobs j2 ON j2.app_id = b2.app_id AND j2.push_id = b2.push_id
                          WHERE b2.state = 'pending'
                            AND (b2.claimed_until IS NULL OR b2.claimed_until < \(now)::timestamptz)
                            AND j2.state IN (\(unsafeRaw: sendableStates))
                          ORDER BY b2.created_at, b2.batch_no LIMIT 1 FOR UPDATE OF b2 SKIP LOCKED) c,
                         push_jobs j
                    WHERE b.app_id = c.app_id AND b.push_id = c.push_id AND b.batch_no = c.batch_no
                      AND j.app_id = b.app_id AND j.push_id = b.push_id
                    RETURNING b.app_id, b.push_id, b.batch_no, b.targets, b.attempts, j.request, b.recorded::text
                    """)
            ).first
        else { return nil }
        let targets = try PushTarget.list(jsonText: row.string("targets"))
        let stored = try row.json("request")
        let request = Result { () throws(LeanError) -> PushRequest in try PushRequest.stored(stored) }
        return BatchClaim(
            appId: try row.string("app_id"), pushId: try row.string("push_id"), batchNo: try row.int("batch_no"),
            owner: owner, targets: targets, request: request, attempts: try row.int("attempts"),
            recorded: RecordedTargets(bits: row["recorded"], count: targets.count))
    }

    /// Extends a lease its owner still holds; false when the batch was recorded or cancelled meanwhile, or
    /// another worker took it over.
    static func renew(_ claim: BatchClaim, until: Date, on db: some PGQuerying) async throws -> Bool {
        try await !db.query(
            .reusingPlan(
                """
                UPDATE push_batches SET claimed_until = \(until)::timestamptz
                WHERE app_id = \(claim.appId) AND push_id = \(claim.pushId) AND batch_no = \(claim.batchNo)
                  AND claimed_by = \(claim.owner) AND state = \(BatchState.pending)
                RETURNING batch_no
                """)
        ).isEmpty
    }

    /// Which targets of a pending batch are recorded, its row locked until the transaction ends; nil when the
    /// batch is no longer pending (recorded in full or cancelled).
    static func lockRecorded(_ claim: BatchClaim, on db: some PGQuerying) async throws -> RecordedTargets? {
        try await db.query(
            .reusingPlan(
                """
                SELECT recorded::text FROM push_batches
                WHERE app_id = \(claim.appId) AND push_id = \(claim.pushId) AND batch_no = \(claim.batchNo)
                  AND state = \(BatchState.pending)
                FOR UPDATE
                """)
        ).first.map { RecordedTargets(bits: $0["recorded"], count: claim.targets.count) }
    }

    /// Stores which targets are recorded now (under the lock `lockRecorded` took); the batch is done once
    /// every target is.
    static func markRecorded(_ claim: BatchClaim, _ recorded: RecordedTargets, on db: PGConnection) async throws {
        let state = BatchState.pending.after(.recorded(completesBatch: recorded.isComplete)) ?? .pending
        try await db.enqueue(
            .reusingPlan(
                """
                UPDATE push_batches SET recorded = \(recorded.bits)::varbit, state = \(state)
                WHERE app_id = \(claim.appId) AND push_id = \(claim.pushId) AND batch_no = \(claim.batchNo)
                """))
    }

    // MARK: Backlog

    /// How much work waits, for the operators' gauges.
    static func backlog(now: Date, on db: some PGQuerying) async throws -> FanOutBacklog {
        let jobs = try await db.query(
            """
            SELECT count(*) FILTER (WHERE send_at <= \(now)::timestamptz) AS due,
                   coalesce(extract(epoch FROM \(now)::timestamptz
                       - min(send_at) FILTER (WHERE send_at <= \(now)::timestamptz)), 0)::float8 AS oldest,
                   count(*) FILTER (WHERE state = \(JobState.scheduled) AND send_at > \(now)::timestamptz) AS waiting
            FROM push_jobs WHERE state IN ('scheduled', 'targeting')
            """)[0]
        let batches = try await db.query(
            "SELECT count(*) AS n FROM push_batches WHERE state = 'pending'")[0]
        return FanOutBacklog(
            dueJobs: try jobs.int("due"), oldestDueSeconds: Double(jobs["oldest"] ?? "") ?? 0,
            scheduledJobs: try jobs.int("waiting"), pendingBatches: try batches.int("n"))
    }

    // MARK: Retention

    /// Scheduled pushes whose expiration has passed before they were sent.
    static func expiredScheduled(appId: String, now: Date, on db: some PGQuerying) async throws -> [String] {
        try await db.query(
            """
            SELECT push_id FROM push_jobs
            WHERE app_id = \(appId) AND state = \(JobState.scheduled) AND expires_at <= \(now)::timestamptz
            ORDER BY push_id
            """
        ).map { try $0.string("push_id") }
    }

    /// Ends a still scheduled, expired job; false when it is no longer both.
    static func expireScheduled(appId: String, pushId: String, now: Date, on db: some PGQuerying) async throws -> Bool {
        let next = try transition(.scheduled, .expired)
        return try await !db.query(
            """
            UPDATE push_jobs SET state = \(next)
            WHERE app_id = \(appId) AND push_id = \(pushId) AND state = \(JobState.scheduled)
              AND expires_at <= \(now)::timestamptz
            RETURNING push_id
            """
        ).isEmpty
    }

    /// For a query over `notifications n`: no work of the push remains (its job ended, or it has none).
    static let workFinished = PGQuery(
        unsafeSQL: """
            NOT EXISTS (SELECT 1 FROM push_jobs j WHERE j.app_id = n.app_id AND j.push_id = n.object_id
                        AND j.state NOT IN (\(JobState.allCases.filter(\.isTerminal).map { "'\($0.rawValue)'" }.joined(separator: ", "))))
            """)

    /// Removes a finished push's work rows (its record is purged).
    static func remove(appId: String, pushId: String, on db: some PGQuerying) async throws {
        try await db.query("DELETE FROM push_batches WHERE app_id = \(appId) AND push_id = \(pushId)")
        try await db.query("DELETE FROM push_jobs WHERE app_id = \(appId) AND push_id = \(pushId)")
    }

    /// `state.after(event)`, where the event must apply: the caller checked the state in the same
    /// transaction, so a refusal is a bug, not a race.
    private static func transition(_ state: JobState, _ event: JobEvent) throws -> JobState {
        guard let next = state.after(event) else { throw IllegalJobTransition(state: state, event: event) }
        return next
    }
}

/// Where a pending batch goes on `event` (the SQL that applies it selects pending batches only).
private func batchTransition(_ event: BatchEvent) -> BatchState {
    BatchState.pending.after(event) ?? .pending
}

/// A transition `JobState.after` refuses, asked for where the caller had checked the state: a bug, so the
/// failure policy ends the push rather than retrying it.
struct IllegalJobTransition: Error, CustomStringConvertible {
    let state: JobState
    let event: JobEvent
    var description: String { "fan-out: \(event) does not apply to a \(state.rawValue) job" }
}
