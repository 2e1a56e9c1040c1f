import Foundation
import Postgres
import PushCore

/// A batch a delivery worker has leased.
public struct BatchClaim: Sendable {
    public let appId: String
    public let pushId: String
    public let batchNo: Int
    /// The worker holding the lease.
    public let owner: String
    public let targets: [PushTarget]
    /// The stored request, or why it no longer reads (then nothing is sent and the push fails with it).
    public let request: Result<PushRequest, LeanError>
    /// How many times this batch has been leased, this lease included.
    public let attempts: Int
}

/// What happened to one target.
public enum TargetOutcome: Sendable, Hashable {
    case delivered
    /// The provider rejected the token for good: the installation is invalidated.
    case invalidToken(reason: String, since: Date)
    /// Counted as an error with its reason.
    case failed(reason: String)
    /// Never handed to a provider (the push was cancelled or failed, or the process is shutting down).
    case notSent
}

/// Leases batches to delivery workers and records their outcomes exactly once (SPEC §5, issue 3 point 3).
/// A lease that expires (the worker died) makes the batch claimable again; only the first outcome recorded
/// for a batch counts, so duplicates are limited to batches in flight and counters stay exact.
public struct PushBatches: Sendable {
    let store: EventStore

    public init(store: EventStore) { self.store = store }

    /// Leases the oldest pending batch of a push that is still being sent. `'pending'` is an SQL literal, not a
    /// parameter, so that a generic plan can use the partial index push_batches_pending. A batch whose job was cancelled or
    /// failed is never handed out, even when its earlier sender died holding it.
    public func claim(owner: String, lease: Duration = .seconds(30), now: Date = Date()) async throws -> BatchClaim? {
        let until = now.addingTimeInterval(Double(lease.components.seconds))
        guard let row = try await store.pool.query(
            """
            UPDATE push_batches b SET claimed_by = \(owner), claimed_until = \(until)::timestamptz,
                attempts = b.attempts + 1
            FROM (SELECT b2.app_id, b2.push_id, b2.batch_no FROM push_batches b2
                  JOIN push_jobs j2 ON j2.app_id = b2.app_id AND j2.push_id = b2.push_id
                  WHERE b2.state = 'pending'
                    AND (b2.claimed_until IS NULL OR b2.claimed_until < \(now)::timestamptz)
                    AND j2.state IN (\(JobState.targeting), \(JobState.sending))
                  ORDER BY b2.created_at, b2.batch_no LIMIT 1 FOR UPDATE OF b2 SKIP LOCKED) c,
                 push_jobs j
            WHERE b.app_id = c.app_id AND b.push_id = c.push_id AND b.batch_no = c.batch_no
              AND j.app_id = b.app_id AND j.push_id = b.push_id
            RETURNING b.app_id, b.push_id, b.batch_no, b.targets, b.attempts, j.request
            """).first
        else { return nil }
        let targets = (try row.json("targets").arrayValue ?? []).compactMap(PushTarget.init(json:))
        let stored = try row.json("request")
        let request = Result { () throws(LeanError) -> PushRequest in try PushRequest.stored(stored) }
        return BatchClaim(
            appId: try row.string("app_id"), pushId: try row.string("push_id"), batchNo: try row.int("batch_no"),
            owner: owner, targets: targets, request: request, attempts: try row.int("attempts"))
    }

    /// The state of a push's job, read by senders to stop dispatching when it is cancelled or has failed.
    public func jobState(appId: String, pushId: String) async throws -> JobState? {
        try await store.pool.query("SELECT state FROM push_jobs WHERE app_id = \(appId) AND push_id = \(pushId)")
            .first?["state"].flatMap(JobState.init(rawValue:))
    }

    /// `flow_control` (SPEC §4.1): reserves `count` devices of the push's per-second budget, kept in the
    /// database so that every process sending the push shares one budget. Returns when the reserved slot
    /// starts (now or later): the caller waits until then.
    public func reserveFlow(appId: String, pushId: String, count: Int, rate: Int) async throws -> Date {
        let seconds = Double(count) / Double(max(rate, 1))
        let row = try await store.pool.query(
            """
            UPDATE push_jobs SET flow_next_at = greatest(flow_next_at, clock_timestamp())
                + make_interval(secs => \(seconds))
            WHERE app_id = \(appId) AND push_id = \(pushId)
            RETURNING flow_next_at - make_interval(secs => \(seconds)) AS starts
            """).first
        return try row?.date("starts") ?? Date()
    }

    /// Extends the lease of a batch its owner is still sending, so that a slow send (a provider timing out,
    /// an overloaded machine) is not mistaken for a dead sender and re-sent whole by another worker. Returns
    /// false when the batch was recorded or cancelled meanwhile, or another worker took it over.
    public func renew(_ claim: BatchClaim, lease: Duration = .seconds(30), now: Date = Date()) async throws -> Bool {
        let until = now.addingTimeInterval(Double(lease.components.seconds))
        return try await !store.pool.query(
            """
            UPDATE push_batches SET claimed_until = \(until)::timestamptz
            WHERE app_id = \(claim.appId) AND push_id = \(claim.pushId) AND batch_no = \(claim.batchNo)
              AND claimed_by = \(claim.owner) AND state = \(BatchState.pending)
            RETURNING batch_no
            """).isEmpty
    }

    /// Records a batch's outcomes: one `PushBatchDelivered`, an `InstallationInvalidated` per dead token,
    /// and `PushCompleted` when it was the last batch. Targets that were not sent go back to the queue as a
    /// new batch while the push is live (a sender shutting down hands them back), and count as errors with
    /// the reason `Cancelled`/`PushFailed` when it is not. `pushFailure` ends the whole push: `PushFailed`
    /// with that reason, and its batches no sender holds are cancelled. Returns false when the batch was
    /// already recorded or cancelled (another worker finished it after this one's lease expired).
    @discardableResult
    public func record(_ claim: BatchClaim, outcomes: [TargetOutcome], pushFailure: String? = nil, now: Date = Date())
        async throws -> Bool
    {
        precondition(outcomes.count == claim.targets.count)
        let stream = PushEvent.stream(claim.pushId)
        let invalid = zip(claim.targets, outcomes).compactMap { t, o -> (PushTarget, String, Date)? in
            if case .invalidToken(let reason, let since) = o { return (t, reason, since) }
            return nil
        }
        let invalidStreams = invalid.map { t, _, _ in
            t.objectId.isEmpty ? "token:\(t.token)" : InstallationEvent.stream(t.objectId)
        }
        return try await store.write(
            appId: claim.appId, metadata: .system("delivery"), lockKeys: [stream] + invalidStreams
        ) { tx in
            let conn = tx.connection
            let state = try await conn.query(
                """
                SELECT state FROM push_batches
                WHERE app_id = \(claim.appId) AND push_id = \(claim.pushId) AND batch_no = \(claim.batchNo)
                """).first?["state"]
            guard state == BatchState.pending.rawValue else { return false }
            let jobState = try await conn.query(
                "SELECT state FROM push_jobs WHERE app_id = \(claim.appId) AND push_id = \(claim.pushId)"
            ).first?["state"].flatMap(JobState.init(rawValue:)) ?? .done
            let live = !jobState.isTerminal && pushFailure == nil
            let at = LeanDate.format(now)
            var successes: Int64 = 0, ios: Int64 = 0, android: Int64 = 0, errors: Int64 = 0
            var reasons: [String: Int64] = [:]
            var failures: [String: String] = [:]
            var handedBack: [PushTarget] = []
            for (target, outcome) in zip(claim.targets, outcomes) {
                let failure: String
                switch outcome {
                case .delivered:
                    successes += 1
                    if target.deviceType == PushPlatform.ios.rawValue { ios += 1 } else { android += 1 }
                    continue
                case .notSent where live:
                    handedBack.append(target)
                    continue
                case .notSent:
                    failure = jobState == .cancelled ? "Cancelled" : "PushFailed"
                case .invalidToken(let reason, _), .failed(let reason):
                    failure = reason
                }
                errors += 1
                reasons[failure, default: 0] += 1
                failures[target.objectId.isEmpty ? target.token : target.objectId] = failure
            }
            let delivered = BatchDelivered(
                objectId: claim.pushId, batch: Int64(claim.batchNo), at: at, successes: successes, iosSuccesses: ios,
                androidSuccesses: android, errors: errors, invalidTokens: Int64(invalid.count), reasons: reasons,
                failures: failures, handedBack: handedBack.isEmpty ? nil : Int64(handedBack.count))
            var events = [NewEvent(PushEvent.batchDelivered, delivered.json)]
            try await conn.query(
                """
                UPDATE push_batches SET state = \(BatchState.done)
                WHERE app_id = \(claim.appId) AND push_id = \(claim.pushId) AND batch_no = \(claim.batchNo)
                """)
            if !handedBack.isEmpty {
                let number = try await conn.query(
                    """
                    UPDATE push_jobs SET batches = batches + 1 WHERE app_id = \(claim.appId) AND push_id = \(claim.pushId)
                    RETURNING batches - 1 AS n
                    """)[0].int("n")
                try await PushWork.insertBatch(
                    appId: claim.appId, pushId: claim.pushId, number: number, targets: handedBack, on: conn)
            }
            if let pushFailure, !jobState.isTerminal {
                let status = FanOutFailurePolicy.status(pushFailure)
                events.append(NewEvent(PushEvent.failed, PushFailedPayload(
                    objectId: claim.pushId, at: at, status: status, reason: pushFailure, stage: "delivery").json))
                try await PushWork.endJob(
                    appId: claim.appId, pushId: claim.pushId, state: .failed, reason: pushFailure, now: now, on: conn)
            } else {
                let job = try await conn.query(
                    """
                    SELECT j.state, (SELECT count(*) FROM push_batches b WHERE b.app_id = j.app_id AND b.push_id = j.push_id
                                     AND b.state = \(BatchState.pending)) AS pending
                    FROM push_jobs j WHERE j.app_id = \(claim.appId) AND j.push_id = \(claim.pushId)
                    """).first
                if job?["state"] == JobState.sending.rawValue, job?["pending"] == "0" {
                    events.append(NewEvent(PushEvent.completed, ["objectId": .string(claim.pushId), "at": .string(at)]))
                    try await conn.query(
                        """
                        UPDATE push_jobs SET state = \(JobState.done)
                        WHERE app_id = \(claim.appId) AND push_id = \(claim.pushId)
                        """)
                }
            }
            try await tx.append(stream: stream, expectedVersion: try await tx.currentVersion(of: stream), events)
            try await rememberDeliveries(claim, outcomes: outcomes, at: at, on: conn)
            for ((target, reason, since), key) in zip(invalid, invalidStreams) {
                try await invalidate(target, reason: reason, since: since, stream: key, tx: tx)
            }
            return true
        }
    }

    /// Remembers this push as the last one delivered to each reached installation, so an open without `_nid`
    /// can be attributed to it (SPEC §6).
    private func rememberDeliveries(_ claim: BatchClaim, outcomes: [TargetOutcome], at: String, on conn: PGConnection)
        async throws
    {
        let reached = zip(claim.targets, outcomes).compactMap { t, o in o == .delivered && !t.objectId.isEmpty ? t.objectId : nil }
        guard !reached.isEmpty else { return }
        try await conn.query(
            """
            INSERT INTO last_deliveries (app_id, installation_id, push_id, delivered_at)
            SELECT \(claim.appId), id, \(claim.pushId), \(at)::timestamptz FROM unnest(\(reached)::text[]) AS id
            ON CONFLICT (app_id, installation_id) DO UPDATE SET push_id = excluded.push_id,
                delivered_at = excluded.delivered_at
            WHERE last_deliveries.delivered_at <= excluded.delivered_at
            """)
    }

    /// The installation goes (if it still has this token) and the token is remembered as invalid.
    private func invalidate(_ target: PushTarget, reason: String, since: Date, stream: String, tx: LedgerTransaction)
        async throws
    {
        var data: [String: JSON] = [
            "objectId": .string(target.objectId), "token": .string(target.token), "reason": .string(reason),
            "since": .string(LeanDate.format(since)), "at": .string(LeanDate.format(Date())),
        ]
        if !target.objectId.isEmpty {
            let row = try await tx.connection.query(
                """
                SELECT version, coalesce(device_token, registration_id) AS token FROM installations
                WHERE app_id = \(tx.appId) AND object_id = \(target.objectId)
                """).first
            // Re-registered with another token since it was targeted: nothing to invalidate.
            guard let row, row["token"] == target.token else { return }
            try await tx.append(stream: stream, expectedVersion: try row.int("version"),
                [NewEvent(InstallationEvent.invalidated, .object(data))])
        } else {
            data["objectId"] = .string("")
            try await tx.append(stream: stream, expectedVersion: try await tx.currentVersion(of: stream),
                [NewEvent(InstallationEvent.invalidated, .object(data))])
        }
    }
}
