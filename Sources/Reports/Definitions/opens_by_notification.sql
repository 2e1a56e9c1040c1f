-- Opens per notification id (`--by notification`): the pushes created in the range grouped by the
-- `notification_id` their senders gave them (pushes without one form a single group with a null id), with
-- the median and spread of time to open over all their unique opens.
-- $1 app id, $2 first day, $3 last day (inclusive, days in the app's time zone).
WITH app AS (
    SELECT coalesce(settings ->> 'timezone', 'UTC') AS tz FROM apps WHERE app_id = $1
),
pushes AS (
    SELECT s.* FROM push_stats s CROSS JOIN app
    WHERE s.app_id = $1
      AND (s.created_at AT TIME ZONE app.tz)::date BETWEEN $2::date AND $3::date
),
opened AS (
    SELECT s.notification_id, p.seconds_to_open
    FROM pushes s JOIN push_opens p ON p.app_id = s.app_id AND p.push_id = s.push_id
),
timing AS (
    SELECT notification_id,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds_to_open) AS median_seconds,
           count(*) FILTER (WHERE seconds_to_open < 60) AS under1m,
           count(*) FILTER (WHERE seconds_to_open >= 60 AND seconds_to_open < 600) AS under10m,
           count(*) FILTER (WHERE seconds_to_open >= 600 AND seconds_to_open < 3600) AS under1h,
           count(*) FILTER (WHERE seconds_to_open >= 3600 AND seconds_to_open < 21600) AS under6h,
           count(*) FILTER (WHERE seconds_to_open >= 21600 AND seconds_to_open < 86400) AS under24h,
           count(*) FILTER (WHERE seconds_to_open >= 86400) AS later,
           count(*) FILTER (WHERE seconds_to_open IS NULL) AS unknown
    FROM opened GROUP BY notification_id
)
SELECT g.notification_id,
       g.pushes,
       to_char(g.first_created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS first_created_at,
       g.devices, g.successes, g.opens, g.unique_opens,
       round(t.median_seconds::numeric, 3) AS median_seconds_to_open,
       coalesce(t.under1m, 0) AS under1m,
       coalesce(t.under10m, 0) AS under10m,
       coalesce(t.under1h, 0) AS under1h,
       coalesce(t.under6h, 0) AS under6h,
       coalesce(t.under24h, 0) AS under24h,
       coalesce(t.later, 0) AS later,
       coalesce(t.unknown, 0) AS unknown
FROM (
    SELECT notification_id, count(*) AS pushes, min(created_at) AS first_created_at,
           sum(devices) AS devices, sum(successes) AS successes, sum(opens) AS opens,
           sum(unique_opens) AS unique_opens
    FROM pushes GROUP BY notification_id
) g
LEFT JOIN timing t ON t.notification_id IS NOT DISTINCT FROM g.notification_id
ORDER BY g.first_created_at, g.notification_id
