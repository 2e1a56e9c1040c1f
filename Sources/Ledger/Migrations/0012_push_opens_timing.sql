-- The opens report's time-to-open figures (median and spread per push) read every first open of the pushes in
-- its range. Covering (app_id, push_id) with the seconds lets each push's opens be read from the index alone
-- and sorted on their own, instead of sorting every open of the range together (1.6M opens: 1.3 s → 0.34 s,
-- docs/benchmarks.md).
CREATE INDEX push_opens_timing ON push_opens (app_id, push_id) INCLUDE (seconds_to_open);
