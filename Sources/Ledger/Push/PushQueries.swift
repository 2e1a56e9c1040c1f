import Foundation
import Postgres
import PushCore

/// What the push commands recorded: the push records (`notifications`), the scheduled jobs and the log.
/// Push records as LeanCloud shows them (SPEC §12.6, seed 001): requests sharing a `notification_id` are one
/// record. The `notifications` rows stay one per request (each request keeps its own stream, audit entry,
/// DELETE and retention); the merge happens when records are read, so a purged or deleted member simply
/// stops counting and the merged record goes with its last member.
public struct PushQueries: Sendable {
    let pool: PGPool

    public init(pool: PGPool) { self.pool = pool }

    /// The record of `pushId`, merged with the other requests of its `notification_id` if it has one.
    public func get(appId: String, pushId: String) async throws -> PushRecord? {
        let rows = try await pool.query(
            """
            WITH member AS (
                SELECT notification_id FROM notifications WHERE app_id = \(appId) AND object_id = \(pushId)
            ),
            members AS (
                SELECT n.* FROM notifications n, member m
                WHERE n.app_id = \(appId)
                  AND (n.object_id = \(pushId) OR (m.notification_id IS NOT NULL AND n.notification_id = m.notification_id))
            )
            SELECT \(unsafeRaw: PushRecord.columns), (SELECT \(Self.mergedStatus) FROM members) AS merged_status
            FROM members ORDER BY created_at, object_id
            """)
        guard let first = rows.first else { return nil }
        return PushRecord(merged: try rows.map(PushRecord.init), status: try first.string("merged_status"))
    }

    /// One page of records, newest first (by their first request), a `notification_id`'s requests as one;
    /// `filter` applies to the merged record (its status, its first request's creation time).
    public func list(appId: String, filter: PushListFilter, limit: Int, skip: Int) async throws -> [PushRecord] {
        let rows = try await pool.query(
            """
            WITH grouped AS (
                SELECT notification_id IS NOT NULL AS shared, coalesce(notification_id, object_id) AS group_key,
                       min(created_at) AS created_at, \(Self.mergedStatus) AS status
                FROM notifications WHERE app_id = \(appId)
                GROUP BY notification_id IS NOT NULL, coalesce(notification_id, object_id)
            ),
            page AS (
                SELECT shared, group_key, created_at AS first_at, status AS merged_status FROM grouped
                WHERE \(filter.condition)
                ORDER BY created_at DESC, group_key LIMIT \(limit) OFFSET \(skip)
            )
            SELECT \(unsafeRaw: PushRecord.columns), p.group_key, p.merged_status
            FROM page p JOIN notifications n ON n.app_id = \(appId)
             AND CASE WHEN p.shared THEN n.notification_id = p.group_key
                      ELSE n.object_id = p.group_key AND n.notification_id IS NULL END
            ORDER BY p.first_at DESC, p.group_key, n.created_at, n.object_id
            """)
        var records: [PushRecord] = []
        var members: [PushRecord] = []
        var current: (key: String, status: String)?
        for row in rows {
            let key = try row.string("group_key")
            if let open = current, open.key != key {
                records.append(PushRecord(merged: members, status: open.status))
                members = []
            }
            current = (key, try row.string("merged_status"))
            members.append(try PushRecord(row: row))
        }
        if let open = current { records.append(PushRecord(merged: members, status: open.status)) }
        return records
    }

    public func list(appId: String, limit: Int, skip: Int) async throws -> [PushRecord] {
        try await list(appId: appId, filter: PushListFilter(), limit: limit, skip: skip)
    }

    /// LeanCloud's `scheduledPushMessages` shape.
    public func scheduled(appId: String) async throws -> [JSON] {
        try await PushLifecycleInterpreter.scheduledJobs(appId: appId, on: pool).map { job in
            [
                "id": .int(job.scheduleId), "expire_time": .int(LeanDate.unixMilliseconds(job.sendAt)),
                "push_msg": job.request, "createdAt": .string(LeanDate.format(job.createdAt)),
            ]
        }
    }

    /// A merged record is `done` only when every request is; while one is sending it is `in-queue`, then
    /// `scheduled` while one waits; otherwise (all ended, not all done) it says how the first request that
    /// did not finish ended (`cancelled`, or its error).
    static let mergedStatus: PGQuery = """
        CASE WHEN bool_or(status = 'in-queue') THEN 'in-queue'
             WHEN bool_or(status = 'scheduled') THEN 'scheduled'
             WHEN bool_and(status = 'done') THEN 'done'
             ELSE (array_agg(status ORDER BY created_at, object_id) FILTER (WHERE status <> 'done'))[1] END
        """
}
