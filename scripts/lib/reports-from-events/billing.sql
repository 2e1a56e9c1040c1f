-- The billing report (Sources/Reports/Definitions/billing.sql) computed from the raw log instead of the
-- usage projection: the independent answer the report must equal (Tests/ReportsTests/ReportsFromEventsTests
-- on a generated history; scripts/bench-reports times both on 10M events). Days in the app's time zone.
-- $1 app id, $2 first day, $3 last day (inclusive).
WITH tz AS (
    SELECT coalesce((SELECT settings ->> 'timezone' FROM apps WHERE app_id = $1), 'UTC') AS zone
),
e AS (
    SELECT type, data, (data ->> 'at')::timestamptz AT TIME ZONE tz.zone AS local
    FROM events, tz
    WHERE app_id = $1 AND type IN ('PushRequested', 'PushTargeted', 'PushBatchDelivered')
),
minutes AS (
    SELECT date_trunc('minute', local) AS minute, count(*) AS calls FROM e WHERE type = 'PushRequested' GROUP BY 1
),
per_day AS (
    SELECT minute::date AS day, sum(calls) AS calls, max(calls) AS peak, 0 AS devices, 0 AS successes
    FROM minutes GROUP BY 1
    UNION ALL
    SELECT local::date, 0, 0, sum(jsonb_array_length(data -> 'targets')), 0 FROM e WHERE type = 'PushTargeted' GROUP BY 1
    UNION ALL
    SELECT local::date, 0, 0, 0, sum((data ->> 'successes')::bigint) FROM e WHERE type = 'PushBatchDelivered' GROUP BY 1
)
SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(calls)::bigint AS calls, max(peak)::bigint AS peak_calls_per_minute,
       sum(devices)::bigint AS pushes, sum(successes)::bigint AS successes
FROM per_day
WHERE day BETWEEN $2::date AND $3::date
GROUP BY day
ORDER BY day
