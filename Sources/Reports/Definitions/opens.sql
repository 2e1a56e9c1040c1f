-- Opens per push (SPEC §9), or per notification id (`--by notification`): the pushes created in the range
-- (days in the app's time zone), their counters summed per group, the median time from delivery to first
-- open, and how unique opens spread over time. A push is a group of one; pushes without a notification id
-- form one group with a null id. Opens whose delivery time is unknown have no seconds_to_open: they count
-- in `unknown`, not in the median.
-- $1 app id, $2 first day, $3 last day (inclusive), $4 grouping: 'push' or 'notification'.
WITH app AS (
    SELECT coalesce(settings ->> 'timezone', 'UTC') AS tz FROM apps WHERE app_id = $1
),
pushes AS (
    SELECT s.*, CASE WHEN $4 = 'notification' THEN s.notification_id ELSE s.push_id END AS group_key
    FROM push_stats s CROSS JOIN app
    WHERE s.app_id = $1
      AND (s.created_at AT TIME ZONE app.tz)::date BETWEEN $2::date AND $3::date
),
groups AS (
    SELECT group_key, min(push_id) AS object_id, min(notification_id) AS notification_id, count(*) AS pushes,
           min(created_at) AS created_at, sum(devices) AS devices, sum(successes) AS successes,
           sum(opens) AS opens, sum(unique_opens) AS unique_opens
    FROM pushes GROUP BY group_key
),
-- Each group's opens read on their own (index push_opens_timing, migration 0012): one sort per group
-- instead of one over every open of the range.
timing AS (
    SELECT g.group_key, t.*
    FROM (SELECT group_key, array_agg(push_id) AS ids FROM pushes GROUP BY group_key) g
    CROSS JOIN LATERAL (
        SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY p.seconds_to_open) AS median_seconds,
               count(*) FILTER (WHERE p.seconds_to_open < 60) AS under1m,
               count(*) FILTER (WHERE p.seconds_to_open >= 60 AND p.seconds_to_open < 600) AS under10m,
               count(*) FILTER (WHERE p.seconds_to_open >= 600 AND p.seconds_to_open < 3600) AS under1h,
               count(*) FILTER (WHERE p.seconds_to_open >= 3600 AND p.seconds_to_open < 21600) AS under6h,
               count(*) FILTER (WHERE p.seconds_to_open >= 21600 AND p.seconds_to_open < 86400) AS under24h,
               count(*) FILTER (WHERE p.seconds_to_open >= 86400) AS later,
               count(*) FILTER (WHERE p.seconds_to_open IS NULL) AS unknown
        FROM push_opens p
        WHERE p.app_id = $1 AND p.push_id = ANY(g.ids)) t
)
SELECT g.object_id,
       g.notification_id,
       g.pushes,
       to_char(g.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
       g.devices, g.successes, g.opens, g.unique_opens,
       round(t.median_seconds::numeric, 3) AS median_seconds_to_open,
       coalesce(t.under1m, 0) AS under1m,
       coalesce(t.under10m, 0) AS under10m,
       coalesce(t.under1h, 0) AS under1h,
       coalesce(t.under6h, 0) AS under6h,
       coalesce(t.under24h, 0) AS under24h,
       coalesce(t.later, 0) AS later,
       coalesce(t.unknown, 0) AS unknown,
       -- Android successes by vendor counter (SPEC §12.3), summed over the group's pushes.
       (SELECT coalesce(jsonb_object_agg(k, n), '{}') FROM (
            SELECT k, sum(v::bigint) AS n FROM pushes p, jsonb_each_text(p.vendor_successes) AS j(k, v)
            WHERE p.group_key IS NOT DISTINCT FROM g.group_key GROUP BY k) AS x) AS vendor_successes
FROM groups g
LEFT JOIN timing t ON t.group_key IS NOT DISTINCT FROM g.group_key
ORDER BY g.created_at, g.object_id
