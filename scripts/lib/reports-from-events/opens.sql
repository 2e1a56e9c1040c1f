-- The opens report per push (Sources/Reports/Definitions/opens.sql) computed from the raw log instead of
-- the push_stats/push_opens projection: the independent answer the report must equal (see billing.sql here).
-- Pushes requested in the range (days in the app's time zone); a push's devices are its targets, its
-- successes its batches' successes plus own-channel acks, its unique opens the installations that opened
-- it, and the median time to open runs over each installation's first open.
-- $1 app id, $2 first day, $3 last day (inclusive).
WITH tz AS (
    SELECT coalesce((SELECT settings ->> 'timezone' FROM apps WHERE app_id = $1), 'UTC') AS zone
),
pushes AS (
    SELECT data ->> 'objectId' AS push_id, (data ->> 'at')::timestamptz AS created_at
    FROM events, tz
    WHERE app_id = $1 AND type = 'PushRequested'
      AND ((data ->> 'at')::timestamptz AT TIME ZONE tz.zone)::date BETWEEN $2::date AND $3::date
),
push_events AS (
    SELECT data ->> 'objectId' AS push_id, type, data FROM events
    WHERE app_id = $1 AND type IN ('PushTargeted', 'PushBatchDelivered', 'PushChannelAcked')
),
counts AS (
    SELECT push_id,
           sum(jsonb_array_length(data -> 'targets')) FILTER (WHERE type = 'PushTargeted') AS devices,
           sum(CASE WHEN type = 'PushBatchDelivered' THEN (data ->> 'successes')::bigint
                    WHEN type = 'PushChannelAcked' THEN
                        (SELECT sum(value::bigint) FROM jsonb_each_text(data -> 'platforms')) END) AS successes
    FROM push_events GROUP BY push_id
),
opens AS (
    SELECT data ->> 'pushId' AS push_id, data ->> 'objectId' AS installation_id, (data ->> 'at')::timestamptz AS at,
           (data ->> 'deliveredAt')::timestamptz AS delivered_at, transaction_id, position
    FROM events WHERE app_id = $1 AND type = 'AppOpened' AND data ? 'pushId'
),
firsts AS (
    SELECT DISTINCT ON (push_id, installation_id) push_id, extract(epoch FROM at - delivered_at) AS seconds
    FROM opens ORDER BY push_id, installation_id, transaction_id, position
),
open_counts AS (
    SELECT o.push_id, count(*) AS opens, count(DISTINCT o.installation_id) AS unique_opens FROM opens o GROUP BY 1
),
medians AS (
    SELECT push_id, percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS median FROM firsts GROUP BY 1
)
SELECT p.push_id AS object_id, coalesce(c.devices, 0)::bigint AS devices, coalesce(c.successes, 0)::bigint AS successes,
       coalesce(o.opens, 0)::bigint AS opens, coalesce(o.unique_opens, 0)::bigint AS unique_opens,
       round(m.median::numeric, 3)::float8 AS median_seconds_to_open
FROM pushes p
LEFT JOIN counts c USING (push_id)
LEFT JOIN open_counts o USING (push_id)
LEFT JOIN medians m USING (push_id)
ORDER BY p.created_at, p.push_id
