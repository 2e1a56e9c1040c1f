import Foundation
import Postgres

/// The day partitions of the event log (sql/0011): made ahead of the rows that will land in them, and dropped
/// whole by the log-retention step. The work is done by the SQL functions of migration 0011, under an
/// advisory lock, so every `serve` process may call these at once.
public struct EventLogPartitions: Sendable {
    /// Partitions are made this many days ahead, so `serve` can stay down (or its retention job off) for a
    /// week before a row lands in the default partition, which still takes it and is drained later.
    public static let daysAhead = 7

    let pool: PGPool

    public init(pool: PGPool) { self.pool = pool }

    /// Creates the partitions from yesterday to `daysAhead` days ahead (UTC), after moving any rows of the
    /// default partition into day partitions. Answers how many day partitions that range holds.
    @discardableResult
    public func prepare(daysAhead: Int = daysAhead) async throws -> Int {
        try await underShortLockWait { conn in
            try await conn.query("SELECT pushledger_event_partitions_prepare(\(daysAhead)) AS n")[0].int("n")
        }
    }

    /// A day partition dropped by `drop(before:)`: its table's name, and the end of its day.
    public struct Dropped: Sendable, Equatable {
        public let partition: String
        public let before: Date
    }

    /// The log-retention step: drops every day partition that ends at or before `cutoff` and records it in
    /// `event_log_trims`. A day that straddles the cutoff is kept whole.
    public func drop(before cutoff: Date) async throws -> [Dropped] {
        try await underShortLockWait { conn in
            try await conn.query(
                "SELECT dropped, dropped_before FROM pushledger_event_partitions_drop(\(cutoff)::timestamptz)"
            ).map { Dropped(partition: try $0.string("dropped"), before: try $0.date("dropped_before")) }
        }
    }

    /// The earliest instant before which the log was trimmed, if it ever was.
    public func trimmedBefore() async throws -> Date? {
        try await pool.query("SELECT max(trimmed_before) AS before FROM event_log_trims")[0].optionalDate("before")
    }

    /// Creating, attaching and dropping partitions need strong locks on `events`. Waiting long for one would
    /// queue every append behind the wait (a `rebuild` holds a weak lock for minutes), so the step gives up
    /// after a short wait; partitions are made a week ahead, and the next run tries again.
    private func underShortLockWait<T: Sendable>(_ body: (PGConnection) async throws -> T) async throws -> T {
        try await pool.withTransaction { conn in
            try await conn.execute(unsafeScript: "SET LOCAL lock_timeout = '5s'")
            return try await body(conn)
        }
    }
}
