import Postgres

/// Proves that work stays out of some of the log's day partitions: another session holds them locked in
/// ACCESS EXCLUSIVE mode, which anything that plans over them, opens or scans them waits for.
public enum LockedPartitions {
    /// The work waited for a locked partition (the locks were then released, and it finished).
    public struct Waited: Error, CustomStringConvertible {
        public var description: String { "the work waited for a locked partition" }
    }

    /// A new session of `db` holding `partitions` in ACCESS EXCLUSIVE mode until it ends its transaction.
    public static func hold(_ partitions: [String], in db: TestDatabase) async throws -> PGConnection {
        let holder = try await db.connect()
        try await holder.query("BEGIN")
        try await holder.query(
            "LOCK TABLE \(unsafeRaw: partitions.joined(separator: ", ")) IN ACCESS EXCLUSIVE MODE")
        return holder
    }

    /// The SQLSTATE `query` fails with on a new session of `db` that waits at most 200 ms for a lock, or nil
    /// when it succeeds: a test's control, showing that a statement planned over every day waits for the
    /// held ones (55P03, lock timeout).
    public static func failure(of query: PGQuery, in db: TestDatabase) async throws -> String? {
        let control = try await db.connect()
        do {
            try await control.query("SET lock_timeout = '200ms'")
            _ = try await control.query(query)
            await control.close()
            return nil
        } catch let error as PGError {
            await control.close()
            return error.sqlState
        } catch {
            await control.close()
            throw error
        }
    }

    /// Runs `work` while `holder` keeps partitions locked. If it has not finished within ten seconds (it
    /// waits for a lock), the locks are released so that it can, and `Waited` is thrown.
    public static func completes<T: Sendable>(
        holding holder: PGConnection, _ work: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            var waited = false
            while let next = try await group.next() {
                if let value = next {
                    group.cancelAll()
                    if waited { throw Waited() }
                    return value
                }
                waited = true
                try await holder.query("COMMIT")
            }
            fatalError("unreachable: the work's task returns or throws")
        }
    }
}
