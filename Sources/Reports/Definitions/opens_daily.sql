-- Opens per day and platform (`--by day`, and the open-rate chart of the html report): deliveries,
-- push opens (all, and first per push and installation) and plain app opens.
-- $1 app id, $2 first day, $3 last day (inclusive, days in the app's time zone).
SELECT to_char(day, 'YYYY-MM-DD') AS day,
       platform,
       successes,
       push_opens AS opens,
       unique_push_opens AS unique_opens,
       app_opens
FROM daily_opens
WHERE app_id = $1
  AND day BETWEEN $2::date AND $3::date
ORDER BY day, platform
