import Foundation
import Postgres
import PushCore

/// The fan-out's work rows (`push_jobs`, `push_batches`): written only inside the transactions that append
/// the events describing the same progress, so work and log can never disagree after a crash.
public enum PushWork {
    static func insertBatch(appId: String, pushId: String, number: Int, targets: [PushTarget], on conn: PGConnection)
        async throws
    {
        let json = JSON.array(targets.map(\.json))
        try await conn.query(
            """
            INSERT INTO push_batches (app_id, push_id, batch_no, targets)
            VALUES (\(appId), \(pushId), \(number), \(json)::jsonb)
            """)
    }

    /// Ends a job for good (`failed` or `cancelled`): the batches no sender holds are cancelled; a leased one
    /// is finished by its sender, which stops dispatching once it sees the job ended. Returns how many
    /// batches it cancelled.
    @discardableResult
    static func endJob(appId: String, pushId: String, state: JobState, reason: String?, now: Date, on conn: PGConnection)
        async throws -> Int
    {
        let cancelled = try await conn.query(
            """
            UPDATE push_batches SET state = \(BatchState.cancelled)
            WHERE app_id = \(appId) AND push_id = \(pushId) AND state = \(BatchState.pending)
              AND (claimed_until IS NULL OR claimed_until < \(now)::timestamptz)
            """).affectedRows
        try await conn.query(
            """
            UPDATE push_jobs SET state = \(state), last_error = coalesce(\(reason), last_error)
            WHERE app_id = \(appId) AND push_id = \(pushId)
            """)
        return cancelled
    }
}
