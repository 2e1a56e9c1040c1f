import Foundation
import Postgres
import PushCore

/// The fan-out's work tables as the queues read them: due jobs, scheduled pushes, batch leases and the
/// backlog. Writes that change a push's lifecycle are `PushLifecycleInterpreter`'s actions; the lease columns
/// (`claimed_by`, `claimed_until`, `recorded`) and the flow budget are written here.
extension PushLifecycleInterpreter {

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

    /// `flow_control` (SPEC §4.1): reserves `count` devices of the push's per-second budget, kept in the
    /// database so that every process sending the push shares one budget. Returns when the reserved slot
    /// starts (`now` or later). `now` is the service's clock, the one the sender waits on, passed as a value:
    /// Citus refuses a volatile function in an UPDATE of a distributed table.
    static func reserveFlow(
        appId: String, pushId: String, count: Int, rate: Int, now: Date, on db: some PGQuerying
    )
        async throws -> Date?
    {
        let seconds = Double(count) / Double(max(rate, 1))
        return try await db.query(
            """
            UPDATE push_jobs SET flow_next_at = greatest(flow_next_at, \(now)::timestamptz)
                + make_interval(secs => \(seconds))
            WHERE app_id = \(appId) AND push_id = \(pushId)
            RETURNING flow_next_at - make_interval(secs => \(seconds)) AS starts
            """
        ).first?.date("starts")
    }

    // MARK: Batches

    /// `JobState.sendable` as SQL literals, for the claim.
    private static let sendableStates = JobState.sendable.map { "'\($0.rawValue)'" }.joined(separator: ", ")

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

    /// The apps with a batch a sender may lease now (pending, its lease free or lapsed, its push still being
    /// sent), in the order of their oldest such batch: a claim then leases within one app (`claim`), which is
    /// what Citus can lock (a `FOR UPDATE` across apps spans workers, which it refuses). The literals serve the
    /// partial index push_batches_pending, as in `claim`.
    static func claimableApps(now: Date, limit: Int, on db: some PGQuerying) async throws -> [String] {
        try await db.query(
            .reusingPlan(
                """
                SELECT b.app_id FROM push_batches b
                JOIN push_jobs j ON j.app_id = b.app_id AND j.push_id = b.push_id
                WHERE b.state = 'pending' AND (b.claimed_until IS NULL OR b.claimed_until < \(now)::timestamptz)
                  AND j.state IN (\(unsafeRaw: sendableStates))
                GROUP BY b.app_id ORDER BY min(b.created_at) LIMIT \(limit)
                """)
        ).map { try $0.string("app_id") }
    }

    /// Leases the app's oldest pending batch of a push that is still being sent. `'pending'` and the sendable job
    /// states are SQL literals, not parameters, so that its generic plan can use the partial index
    /// push_batches_pending and estimates the sendable jobs from the statistics, as a plan for the values
    /// does: it is kept (`reusingPlan`) instead of being planned for each batch. A batch whose job
    /// was cancelled or failed is never handed out, even when its earlier sender died holding it. The choice is
    /// a materialised CTE, made once: as a subquery joined to the app's rows, the planner may scan it again for
    /// each of them, and each scan would skip the rows the ones before it locked and lease another batch.
    static func claim(
        appId: String, owner: String, until: Date, now: Date, on db: some PGQuerying
    ) async throws -> BatchClaim? {
        guard
            let row = try await db.query(
                .reusingPlan(
                    """
                    WITH c AS MATERIALIZED (
                        SELECT b2.push_id, b2.batch_no FROM push_batches b2
                        JOIN push_jobs j2 ON j2.app_id = b2.app_id AND j2.push_id = b2.push_id
                        WHERE b2.app_id = \(appId) AND j2.app_id = \(appId) AND b2.state = 'pending'
                          AND (b2.claimed_until IS NULL OR b2.claimed_until < \(now)::timestamptz)
                          AND j2.state IN (\(unsafeRaw: sendableStates))
                        ORDER BY b2.created_at, b2.batch_no LIMIT 1 FOR UPDATE OF b2 SKIP LOCKED)
                    UPDATE push_batches b SET claimed_by = \(owner), claimed_until = \(until)::timestamptz,
                        attempts = b.attempts + 1
                    FROM c, push_jobs j
                    WHERE b.app_id = \(appId) AND j.app_id = \(appId)
                      AND b.push_id = c.push_id AND b.batch_no = c.batch_no AND j.push_id = b.push_id
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

    /// For a query over `notifications n`: no work of the push remains (its job ended, or it has none).
    static let workFinished = PGQuery(
        unsafeSQL: """
            NOT EXISTS (SELECT 1 FROM push_jobs j WHERE j.app_id = n.app_id AND j.push_id = n.object_id
                        AND j.state NOT IN (\(JobState.allCases.filter(\.isTerminal).map { "'\($0.rawValue)'" }.joined(separator: ", "))))
            """)
}
