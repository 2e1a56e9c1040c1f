-- Opens per push (SPEC §9): the pushes created in the range (days in the app's time zone), their
-- counters, the median time from delivery to first open, and how unique opens spread over time.
-- Opens whose delivery time is unknown have no seconds_to_open: they count in `unknown`, not the median.
-- $1 app id, $2 first day, $3 last day (inclusive).
WITH app AS (
    SELECT coalesce(settings ->> 'timezone', 'UTC') AS tz FROM apps WHERE app_id = $1
)
SELECT s.push_id AS object_id,
       s.notification_id,
       to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
       s.devices,
       s.successes,
       s.opens,
       s.unique_opens,
       round(o.median_seconds::numeric, 3) AS median_seconds_to_open,
       coalesce(o.under1m, 0) AS under1m,
       coalesce(o.under10m, 0) AS under10m,
       coalesce(o.under1h, 0) AS under1h,
       coalesce(o.under6h, 0) AS under6h,
       coalesce(o.under24h, 0) AS under24h,
       coalesce(o.later, 0) AS later,
       coalesce(o.unknown, 0) AS unknown
FROM push_stats s
CROSS JOIN app
LEFT JOIN LATERAL (
    SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY p.seconds_to_open) AS median_seconds,
           count(*) FILTER (WHERE p.seconds_to_open < 60) AS under1m,
           count(*) FILTER (WHERE p.seconds_to_open >= 60 AND p.seconds_to_open < 600) AS under10m,
           count(*) FILTER (WHERE p.seconds_to_open >= 600 AND p.seconds_to_open < 3600) AS under1h,
           count(*) FILTER (WHERE p.seconds_to_open >= 3600 AND p.seconds_to_open < 21600) AS under6h,
           count(*) FILTER (WHERE p.seconds_to_open >= 21600 AND p.seconds_to_open < 86400) AS under24h,
           count(*) FILTER (WHERE p.seconds_to_open >= 86400) AS later,
           count(*) FILTER (WHERE p.seconds_to_open IS NULL) AS unknown
    FROM push_opens p
    WHERE p.app_id = s.app_id AND p.push_id = s.push_id
) o ON true
WHERE s.app_id = $1
  AND (s.created_at AT TIME ZONE app.tz)::date BETWEEN $2::date AND $3::date
ORDER BY s.created_at, s.push_id
