-- Audit (SPEC §9): who did what, when, with what result, in log order. Included are the events of human
-- or API origin and the important system decisions; the high-volume fan-out events (PushTargeted,
-- PushTargetingCompleted, PushBatchDelivered, BadgeIncremented, AppOpened, PushCompleted) are left out,
-- their effect shows as the result of the push request. Secrets in app events are redacted by the
-- Reports target before anything is printed.
-- $1 app id, $2 first day, $3 last day (inclusive, event_time days in the app's time zone); $4 and $5 the
-- earliest recorded_at the scan and the lookups need (AuditScanBounds: a day before the range, or earlier
-- where event_time_outliers, migration 0018, says so), constants the plan leaves earlier days out for.
-- A push request's result reads its stream within the stream's time span (stream_heads, migration 0017), so
-- that each request's lookup runs over the days its stream lies in, not over every day the log keeps.
WITH app AS (
    SELECT coalesce(settings ->> 'timezone', 'UTC') AS tz FROM apps WHERE app_id = $1
),
audited AS (
    SELECT e.transaction_id, e.position, e.stream, e.type, e.data, e.metadata,
           event_time(e.data, e.recorded_at) AS at, h.first_recorded_at, h.last_recorded_at
    FROM events e CROSS JOIN app
    LEFT JOIN stream_heads h ON h.app_id = e.app_id AND h.stream = e.stream
    WHERE e.app_id = $1 AND e.recorded_at >= $4::timestamptz
      AND e.type IN ('PushRequested', 'PushCancelled', 'PushFailed', 'PushExpired', 'NotificationDeleted',
                     'NotificationPurged', 'PushQuotaReached', 'PushRateLimited', 'PushQuotaRefused',
                     'UsageDayClosed', 'InstallationCreated', 'InstallationUpdated', 'InstallationDeleted',
                     'InstallationExpired', 'InstallationInvalidated', 'BadgeReset', 'AppCreated',
                     'AppSettingsChanged', 'ObjectCreated', 'ObjectUpdated', 'ObjectDeleted',
                     'UserSignedUp', 'UserUpdated')
      AND (event_time(e.data, e.recorded_at) AT TIME ZONE app.tz)::date BETWEEN $2::date AND $3::date
)
SELECT to_char(a.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at,
       coalesce(a.metadata ->> 'keyKind', 'system') AS key_kind,
       a.metadata ->> 'address' AS address,
       a.metadata ->> 'userAgent' AS user_agent,
       a.type AS action,
       a.stream AS target,
       CASE WHEN a.type = 'PushRequested' THEN coalesce(a.data -> 'request', '{}')
            ELSE a.data - 'objectId' - 'at' - 'updatedAt' - 'createdAt' END AS detail,
       CASE a.type
           -- A push request's result is the push's final status: the live record while it exists, else the
           -- last terminal event of its stream (records are purged after 7 days, the log keeps them).
           WHEN 'PushRequested' THEN coalesce(
               (SELECT n.status FROM notifications n
                WHERE n.app_id = $1 AND n.object_id = a.data ->> 'objectId'),
               (SELECT CASE t.type WHEN 'PushCancelled' THEN 'cancelled'
                                   WHEN 'PushFailed' THEN coalesce(t.data ->> 'status', 'failed')
                                   ELSE 'done' END
                FROM events t
                WHERE t.app_id = $1 AND t.stream = a.stream AND t.recorded_at >= $5::timestamptz
                  AND t.recorded_at BETWEEN a.first_recorded_at AND a.last_recorded_at
                  AND t.type IN ('PushCompleted', 'PushFailed', 'PushCancelled', 'PushExpired')
                ORDER BY t.version DESC LIMIT 1),
               CASE WHEN EXISTS (SELECT 1 FROM events d WHERE d.app_id = $1 AND d.stream = a.stream
                                 AND d.recorded_at >= $5::timestamptz
                                 AND d.recorded_at BETWEEN a.first_recorded_at AND a.last_recorded_at
                                 AND d.type = 'NotificationDeleted') THEN 'deleted' END,
               a.data ->> 'status')
           WHEN 'PushCancelled' THEN 'cancelled'
           WHEN 'PushFailed' THEN coalesce(a.data ->> 'status', 'failed')
           WHEN 'PushExpired' THEN 'expired'
           WHEN 'NotificationDeleted' THEN 'deleted'
           WHEN 'NotificationPurged' THEN 'purged'
           WHEN 'PushQuotaReached' THEN 'stopped'
           WHEN 'PushRateLimited' THEN 'refused'
           WHEN 'PushQuotaRefused' THEN 'refused'
           WHEN 'UsageDayClosed' THEN 'closed'
           ELSE 'ok'
       END AS result,
       a.metadata ->> 'requestId' AS request_id
FROM audited a
ORDER BY a.transaction_id, a.position
