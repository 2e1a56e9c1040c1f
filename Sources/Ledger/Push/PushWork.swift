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
}
