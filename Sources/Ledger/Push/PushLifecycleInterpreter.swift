import Foundation
import Postgres
import PushCore

/// Carries out `PushLifecycle`'s decisions: the only code that appends to a push's stream or writes the
/// fan-out's work tables (`push_jobs`, `push_batches`). Its callers gather the inputs, ask the lifecycle and
/// hand this what it answered, in the transaction that holds the push stream's lock, so the work tables and
/// the log never disagree after a crash. An append to a push stream by anyone else is refused
/// (`LedgerTransaction.StreamAppend` takes a `PushStreamWriter`, which only this file can make).
struct PushLifecycleInterpreter {
    let tx: LedgerTransaction
    private(set) var lifecycle: PushLifecycle
    /// The stored request, when `load` was asked to read it.
    private(set) var request: JSON?
    /// When the transaction began (`now()`), as PostgreSQL prints it: every event it appends is recorded at or
    /// after it.
    private var transactionStart: String?
    /// The stream's version, once known.
    private var version: Int?
    /// The version of the first event of the latest append.
    private var lastAppendStart = 0
    /// Set: appended events wait until another action, or `flushAppends()`, needs them written, so that the
    /// inputs of several records (`PartRecording`) go in as one append.
    var defersAppends = false
    private var deferred: [PushLogEvent] = []

    var pushId: String { lifecycle.pushId }
    var stream: String { PushEvent.stream(lifecycle.pushId) }
    private var appId: String { tx.appId }

    /// A push accepted in this transaction: no job yet, and its stream, named with a fresh random id, is empty.
    init(acceptedPush pushId: String, at: Date, tx: LedgerTransaction) {
        self.tx = tx
        self.lifecycle = PushLifecycle(pushId: pushId, job: nil, at: at)
        self.version = 0
        tx.claimNewStream(PushEvent.stream(pushId))
    }

    /// A push whose job the input does not read (own-channel results are counted, the job is not touched).
    init(existingPush pushId: String, at: Date, tx: LedgerTransaction) {
        self.tx = tx
        self.lifecycle = PushLifecycle(pushId: pushId, job: nil, at: at)
    }

    /// The push's lifecycle as its job row stands, judged at `at`.
    static func load(
        pushId: String, at: Date, readingRequest: Bool = false, tx: LedgerTransaction
    ) async throws -> Self {
        var interpreter = Self(existingPush: pushId, at: at, tx: tx)
        // `send_at` and `expires_at` are compared in SQL, where both instants have the same precision.
        let requestColumn = readingRequest ? "request" : "NULL::jsonb AS request"
        let row = try await tx.connection.query(
            .reusingPlan(
                """
                SELECT state, batches, targeted, attempts, cursor_object_id, send_at <= \(at)::timestamptz AS due,
                    coalesce(expires_at <= \(at)::timestamptz, false) AS expired, now()::text AS transaction_start,
                    \(unsafeRaw: requestColumn)
                FROM push_jobs WHERE app_id = \(tx.appId) AND push_id = \(pushId)
                """)
        ).first
        guard let row, let state = row["state"].flatMap(JobState.init(rawValue:)) else { return interpreter }
        interpreter.lifecycle = PushLifecycle(
            pushId: pushId,
            job: PushJob(
                state: state, batches: try row.int("batches"), targeted: try row.int64("targeted"),
                attempts: try row.int("attempts"), cursor: row["cursor_object_id"], due: row["due"] == "t",
                expired: row["expired"] == "t"),
            at: at)
        interpreter.transactionStart = try row.string("transaction_start")
        interpreter.request = readingRequest ? try row.json("request") : nil
        return interpreter
    }

    /// Gives the lifecycle one input and carries out what it answers.
    mutating func perform(_ input: (inout PushLifecycle) -> [PushLifecycle.Action]) async throws {
        try await apply(input(&lifecycle))
    }

    /// Like `perform`, for an input that also answers a value (the failure policy's decision).
    mutating func perform<Answer>(
        _ input: (inout PushLifecycle) -> (Answer, [PushLifecycle.Action])
    ) async throws -> Answer {
        let (answer, actions) = input(&lifecycle)
        try await apply(actions)
        return answer
    }

    /// Actions in order; an answer the lifecycle waited for is inserted where its question was.
    private mutating func apply(_ actions: [PushLifecycle.Action]) async throws {
        var queue = actions
        var next = 0
        while next < queue.count {
            let action = queue[next]
            next += 1
            if case .append(let events) = action, defersAppends {
                deferred += events
                continue
            }
            try await flushAppends()
            var answer: [PushLifecycle.Action] = []
            switch action {
            case .append(let events):
                try await append(events)
            case .insertJob(let job, let request, let sendAt, let expiresAt):
                try await insertJob(job, request: request, sendAt: sendAt, expiresAt: expiresAt)
            case .updateJob(let job):
                try await updateJob(job)
            case .postpone(let attempts, let reason, let until):
                try await postpone(attempts: attempts, reason: reason, until: until)
            case .endJob(let state, let reason, let countsAttempt):
                let cancelled = try await endJob(state, reason: reason, countsAttempt: countsAttempt)
                answer = lifecycle.jobEnded(cancelledBatches: cancelled)
            case .insertBatch(let number, let targets):
                try await Self.insertBatch(
                    appId: appId, pushId: pushId, number: number, targets: targets, on: tx.connection)
            case .insertTargetedBatches(let numbers):
                try await insertTargetedBatches(numbers)
            case .countPendingBatches:
                let pending = try await Self.pendingBatches(appId: appId, pushId: pushId, on: tx.connection)
                answer = lifecycle.pendingBatchesCounted(pending)
            case .removeWork:
                try await removeWork()
            case .refuse(let error):
                throw error
            }
            queue.insert(contentsOf: answer, at: next)
        }
    }

    // MARK: The log

    /// Appends the events `defersAppends` kept back.
    mutating func flushAppends() async throws {
        guard !deferred.isEmpty else { return }
        let events = deferred
        deferred = []
        try await append(events)
    }

    private mutating func append(_ events: [PushLogEvent]) async throws {
        guard !events.isEmpty else { return }
        let expected: Int
        if let version { expected = version } else { expected = try await tx.currentVersion(of: stream) }
        try await LedgerTransaction.append([
            LedgerTransaction.StreamAppend(
                tx, pushStream: stream, expectedVersion: expected, events: events.map(NewEvent.init),
                by: PushStreamWriter())
        ])
        lastAppendStart = expected + 1
        version = expected + events.count
    }

    // MARK: The work tables

    private func insertJob(_ job: PushJob, request: JSON, sendAt: Date, expiresAt: Date?) async throws {
        try await tx.connection.query(
            """
            INSERT INTO push_jobs (app_id, push_id, state, send_at, expires_at, request, batches)
            VALUES (\(appId), \(pushId), \(job.state), \(sendAt)::timestamptz, \(expiresAt)::timestamptz,
                    \(request)::jsonb, \(job.batches))
            """)
    }

    private func updateJob(_ job: PushJob) async throws {
        try await tx.connection.query(
            .reusingPlan(
                """
                UPDATE push_jobs SET state = \(job.state), cursor_object_id = \(job.cursor), batches = \(job.batches),
                    targeted = \(job.targeted)
                WHERE app_id = \(appId) AND push_id = \(pushId)
                """))
    }

    private func postpone(attempts: Int, reason: String, until: Date) async throws {
        try await tx.connection.query(
            """
            UPDATE push_jobs SET attempts = \(attempts), last_error = \(reason), send_at = \(until)::timestamptz
            WHERE app_id = \(appId) AND push_id = \(pushId)
            """)
    }

    /// The batches no sender holds are cancelled; a leased one is finished by its sender, which stops
    /// dispatching once it sees the job ended. Returns how many it cancelled.
    private func endJob(_ state: JobState, reason: String?, countsAttempt: Bool) async throws -> Int {
        let cancelled = try await tx.connection.query(
            """
            UPDATE push_batches SET state = \(BatchState.pending.after(.jobEnded(leaseLapsed: true)) ?? .cancelled)
            WHERE app_id = \(appId) AND push_id = \(pushId) AND state = \(BatchState.pending)
              AND (claimed_until IS NULL OR claimed_until < \(lifecycle.at)::timestamptz)
            """
        ).affectedRows
        try await tx.connection.query(
            """
            UPDATE push_jobs SET state = \(state), last_error = coalesce(\(reason), last_error),
                attempts = attempts + \(countsAttempt ? 1 : 0)
            WHERE app_id = \(appId) AND push_id = \(pushId)
            """)
        return cancelled
    }

    /// The batches of a targeting page, their targets copied from the page's `PushTargeted` events (the latest
    /// append's first events) rather than sent and parsed a second time: the list is most of a page's bytes.
    ///
    /// `recordedSince`, the transaction's start, keeps the lookup to the newest day partitions: the event was
    /// recorded after it. It is an untyped parameter cast to `timestamptz`, so each execution is planned for
    /// its value and prunes while planning. Written as `now()` the bound was known only when the statement
    /// ran: every plan covered every partition the log keeps, so the statement had to keep one generic plan,
    /// which a connection makes afresh every ten seconds and which names, and so locks, every partition: its
    /// cost grew with every day the log keeps (docs/decisions.md, "The batch row's copy is bounded by its
    /// transaction's start").
    private func insertTargetedBatches(_ numbers: Range<Int>) async throws {
        guard let recordedSince = transactionStart else {
            throw TargetedEventMissing(stream: stream, version: lastAppendStart)
        }
        for (offset, number) in numbers.enumerated() {
            let version = lastAppendStart + offset
            // The alias: Citus names the target of an INSERT ... SELECT's RETURNING by the table, not its shard.
            let inserted = try await tx.connection.query(
                """
                INSERT INTO push_batches AS b (app_id, push_id, batch_no, targets)
                SELECT app_id, \(pushId), \(number), data -> 'targets' FROM events
                WHERE app_id = \(appId) AND stream = \(stream) AND version = \(version)
                  AND recorded_at >= \(recordedSince)::timestamptz AND type = \(PushEvent.targeted)
                RETURNING batch_no
                """)
            guard inserted.count == 1 else { throw TargetedEventMissing(stream: stream, version: version) }
        }
    }

    /// A batch of targets held in memory (a device list, a sender's hand-back).
    private static func insertBatch(
        appId: String, pushId: String, number: Int, targets: [PushTarget], on db: some PGQuerying
    ) async throws {
        let json = JSON.array(targets.map(\.json))
        try await db.query(
            """
            INSERT INTO push_batches (app_id, push_id, batch_no, targets)
            VALUES (\(appId), \(pushId), \(number), \(json)::jsonb)
            """)
    }

    /// A purged push's work rows.
    private func removeWork() async throws {
        try await tx.connection.query("DELETE FROM push_batches WHERE app_id = \(appId) AND push_id = \(pushId)")
        try await tx.connection.query("DELETE FROM push_jobs WHERE app_id = \(appId) AND push_id = \(pushId)")
    }
}

/// The right to append to a push stream: only `PushLifecycleInterpreter` can make one.
struct PushStreamWriter {
    fileprivate init() {}
}

/// A page's `PushTargeted` event was not where its batch looked for it (never expected to happen: the
/// transaction fails rather than queue a batch without targets).
struct TargetedEventMissing: Error, CustomStringConvertible {
    let stream: String
    let version: Int
    var description: String { "no PushTargeted event at \(stream) version \(version) for its batch" }
}
