import Postgres
import Testing

/// Proves that work stays out of some of the log's day partitions: another session holds them locked in
/// ACCESS EXCLUSIVE mode, which anything that plans over them, opens or scans them waits for.
enum LockedPartitions {
    /// Runs `work` while `holder` keeps partitions locked; if it has not finished within ten seconds (it
    /// waits for a lock), the locks are released so that it can, and the test fails.
    static func completes<T: Sendable>(
        holding holder: PGConnection, _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            while let next = try await group.next() {
                if let value = next {
                    group.cancelAll()
                    return value
                }
                Issue.record("the work waited for a locked partition")
                try await holder.query("COMMIT")
            }
            fatalError("unreachable: the work's task returns or throws")
        }
    }
}
