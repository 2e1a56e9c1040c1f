-- Billing (SPEC §9): one row per day of the app's usage counters in the range. The price list is applied
-- by the Reports target (PushCore.PriceList), so charges stay exact and are unit-tested in one place.
-- $1 app id, $2 first day, $3 last day (inclusive, days in the app's time zone).
SELECT to_char(day, 'YYYY-MM-DD') AS day,
       calls,
       peak_calls_per_minute,
       devices AS pushes,
       successes,
       closed
FROM daily_usage
WHERE app_id = $1
  AND day BETWEEN $2::date AND $3::date
ORDER BY day
