import Foundation
import Postgres
import PushCore

/// The retention job (SPEC §8): every step appends events and re-checks its rows under their stream locks,
/// so a second run changes nothing and several processes may run it at once.
/// - installations not updated for the app's `installation_ttl_days` (default 90) → `InstallationExpired`;
/// - push records older than 7 days that are finished → `NotificationPurged` (their work rows go too; the
///   log and `push_stats` keep their history);
/// - scheduled pushes whose expiration has passed → `PushExpired`;
/// - each finished local day's usage → `UsageDayClosed` (one stream per day, so it closes once);
/// - the event log's day partitions are made a week ahead, and with `logRetentionDays` the days that ended
///   that long ago are dropped whole (the log-retention step of SPEC §7; off unless asked for).
public struct RetentionJob: Sendable {
    let store: EventStore
    let pageSize: Int
    /// Days of event log to keep; nil keeps the whole log, which `rebuild`, `replay`, `explain` and the
    /// audit report read (docs/decisions.md, "Partitioned event log").
    let logRetentionDays: Int?

    public static let pushRecordDays = 7

    public init(store: EventStore, pageSize: Int = 500, logRetentionDays: Int? = nil) {
        self.store = store
        self.pageSize = pageSize
        self.logRetentionDays = logRetentionDays
    }

    public struct Report: Sendable, Equatable {
        public var expiredInstallations = 0
        public var purgedPushes = 0
        public var expiredScheduled = 0
        public var closedDays = 0
        /// Day partitions of the event log dropped by the log-retention step.
        public var droppedLogPartitions = 0

        public init() {}

        public var json: JSON {
            [
                "expiredInstallations": .int(Int64(expiredInstallations)), "purgedPushes": .int(Int64(purgedPushes)),
                "expiredScheduled": .int(Int64(expiredScheduled)), "closedDays": .int(Int64(closedDays)),
                "droppedLogPartitions": .int(Int64(droppedLogPartitions)),
            ]
        }
    }

    /// - Parameter progress: called with (candidates examined, candidates found) as the job goes: stale
    ///   installations a page at a time, then each expired scheduled push, old push record and unclosed day.
    ///   Only when it is given are the candidates counted first, with the steps' own conditions; rows that
    ///   become due while the job runs can lift the count above that total.
    public func run(now: Date? = nil, progress: (@Sendable (Int, Int?) -> Void)? = nil) async throws -> Report {
        let now = now ?? store.clock.now()
        var report = Report()
        let apps = try await store.pool.query("SELECT app_id, settings FROM apps ORDER BY app_id").map { row in
            let settings = try row.json("settings").objectValue ?? [:]
            let ttl = max(1, AppSettings.value("installation_ttl_days", in: settings)?.intValue ?? 90)
            return (id: try row.string("app_id"), staleBefore: now.addingTimeInterval(-Double(ttl) * 86400))
        }
        let pushesBefore = now.addingTimeInterval(-Double(Self.pushRecordDays) * 86400)
        var total: Int?
        if let progress {
            var found = 0
            for app in apps {
                found += try await candidates(
                    app.id, staleBefore: app.staleBefore, pushesBefore: pushesBefore, now: now)
            }
            total = found
            progress(0, found)
        }
        var examined = 0
        let advance: (Int) -> Void = { count in
            examined += count
            progress?(examined, total)
        }
        for app in apps {
            report.expiredInstallations += try await expireInstallations(
                app.id, before: app.staleBefore, now: now, advance: advance)
            report.expiredScheduled += try await expireScheduled(app.id, now: now, advance: advance)
            report.purgedPushes += try await purgePushes(app.id, before: pushesBefore, now: now, advance: advance)
            report.closedDays += try await closeDays(app.id, now: now, advance: advance)
        }
        // Last, so the events the steps above appended are in the log before any of it is dropped.
        let partitions = EventLogPartitions(pool: store.pool)
        try await partitions.prepare()
        if let days = logRetentionDays {
            // Never past the real clock: `retention run --now` in the future must not drop the present log.
            let cutoff = min(now, Date()).addingTimeInterval(-Double(days) * 86400)
            report.droppedLogPartitions = try await partitions.drop(before: cutoff).count
        }
        return report
    }

    /// What the four steps will look at for one app, by their own conditions.
    private func candidates(_ app: String, staleBefore: Date, pushesBefore: Date, now: Date) async throws -> Int {
        let local = try await LocalTime.of(appId: app, schema: "public", on: store.pool)
        let row = try await store.pool.query(
            """
            SELECT (SELECT count(*) FROM installations WHERE \(staleInstallations(app, before: staleBefore))) AS stale,
                (SELECT count(*) FROM notifications n WHERE \(finishedPushRecords(app, before: pushesBefore))) AS old,
                (SELECT count(*) FROM daily_usage WHERE \(unclosedDays(app, now: now, local: local))) AS days
            """)[0]
        let scheduled = try await PushLifecycleInterpreter.expiredScheduled(appId: app, now: now, on: store.pool).count
        return try row.int("stale") + row.int("old") + row.int("days") + scheduled
    }

    private func staleInstallations(_ app: String, before cutoff: Date) -> PGQuery {
        "app_id = \(app) AND updated_at < \(cutoff)::timestamptz"
    }

    /// Finished records only: a push still scheduled or being sent keeps its record whatever its age.
    private func finishedPushRecords(_ app: String, before cutoff: Date) -> PGQuery {
        let unfinished = [PushEvent.Status.scheduled, PushEvent.Status.inQueue]
        return """
            app_id = \(app) AND created_at < \(cutoff)::timestamptz AND status <> ALL(\(unfinished)::text[])
              AND \(PushLifecycleInterpreter.workFinished)
            """
    }

    /// Days before the app's current local day that are not closed yet.
    private func unclosedDays(_ app: String, now: Date, local: LocalTime) -> PGQuery {
        "app_id = \(app) AND NOT closed AND day < \(local.day(LeanDate.format(now)))"
    }

    private var metadata: EventMetadata { .system("retention") }

    /// One page of candidates at a time; each is re-read under its stream lock before it is expired.
    private func expireInstallations(
        _ app: String, before cutoff: Date, now: Date, advance: (Int) -> Void
    )
        async throws -> Int
    {
        var count = 0
        var after = ""
        while true {
            let ids = try await store.pool.query(
                """
                SELECT object_id FROM installations
                WHERE \(staleInstallations(app, before: cutoff)) AND object_id > \(after)
                ORDER BY object_id LIMIT \(pageSize)
                """
            ).map { try $0.string("object_id") }
            guard let last = ids.last else { return count }
            after = last
            count += try await store.write(appId: app, metadata: metadata, lockKeys: ids.map(InstallationEvent.stream))
            { tx in
                let stale = try await tx.connection.query(
                    """
                    SELECT object_id, version, updated_at FROM installations
                    WHERE app_id = \(app) AND object_id = ANY(\(ids)::text[]) AND updated_at < \(cutoff)::timestamptz
                    """)
                for row in stale {
                    let id = try row.string("object_id")
                    let expired = InstallationRemoved(
                        objectId: id, reason: "stale", at: LeanDate.format(now),
                        lastUpdatedAt: LeanDate.format(try row.date("updated_at")))
                    try await tx.append(
                        stream: InstallationEvent.stream(id), expectedVersion: try row.int("version"),
                        [NewEvent(.expired(expired))])
                }
                if !stale.isEmpty {
                    try await tx.connection.query(
                        "DELETE FROM last_deliveries WHERE app_id = \(app) AND installation_id = ANY(\(ids)::text[])")
                }
                return stale.count
            }
            advance(ids.count)
        }
    }

    private func expireScheduled(_ app: String, now: Date, advance: (Int) -> Void) async throws -> Int {
        let ids = try await PushLifecycleInterpreter.expiredScheduled(appId: app, now: now, on: store.pool)
        var count = 0
        for id in ids {
            let stream = PushEvent.stream(id)
            count += try await store.write(appId: app, metadata: metadata, lockKeys: [stream]) { tx in
                var push = try await PushLifecycleInterpreter.load(pushId: id, at: now, tx: tx)
                // Cancelled or sent meanwhile: the lifecycle says whether expiry still applies.
                guard push.lifecycle.hasExpired else { return 0 }
                try await push.perform { $0.expire() }
                return 1
            }
            advance(1)
        }
        return count
    }

    private func purgePushes(
        _ app: String, before cutoff: Date, now: Date, advance: (Int) -> Void
    )
        async throws -> Int
    {
        let ids = try await store.pool.query(
            """
            SELECT object_id FROM notifications n WHERE \(finishedPushRecords(app, before: cutoff)) ORDER BY object_id
            """
        ).map { try $0.string("object_id") }
        var count = 0
        for id in ids {
            let stream = PushEvent.stream(id)
            count += try await store.write(appId: app, metadata: metadata, lockKeys: [stream]) { tx in
                let conn = tx.connection
                let still = try await conn.query(
                    """
                    SELECT 1 AS one FROM notifications n
                    WHERE object_id = \(id) AND \(finishedPushRecords(app, before: cutoff))
                    """)
                guard !still.isEmpty else { return 0 }
                var push = try await PushLifecycleInterpreter.load(pushId: id, at: now, tx: tx)
                try await push.perform { $0.purge() }
                return 1
            }
            advance(1)
        }
        return count
    }

    private func closeDays(_ app: String, now: Date, advance: (Int) -> Void) async throws -> Int {
        let local = try await LocalTime.of(appId: app, schema: "public", on: store.pool)
        let days = try await store.pool.query(
            """
            SELECT to_char(day, 'YYYY-MM-DD') AS day FROM daily_usage WHERE \(unclosedDays(app, now: now, local: local))
            ORDER BY day
            """
        ).map { try $0.string("day") }
        var count = 0
        for day in days {
            let stream = UsageEvent.dayStream(day)
            count += try await store.write(appId: app, metadata: metadata, lockKeys: [stream]) { tx in
                guard try await tx.currentVersion(of: stream) == 0,
                    let usage = try await tx.connection.query(
                        """
                        SELECT calls, peak_calls_per_minute, devices, successes FROM daily_usage
                        WHERE app_id = \(app) AND day = \(day)::date
                        """
                    ).first
                else { return 0 }
                try await tx.append(
                    stream: stream, expectedVersion: 0,
                    [
                        NewEvent(
                            .dayClosed(
                                UsageDayClosed(
                                    at: LeanDate.format(now), day: day, calls: try usage.int64("calls"),
                                    peakCallsPerMinute: try usage.int64("peak_calls_per_minute"),
                                    devices: try usage.int64("devices"), successes: try usage.int64("successes"))))
                    ])
                return 1
            }
            advance(1)
        }
        return count
    }
}
