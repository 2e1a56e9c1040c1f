-- Where in time each stream's events lie, so that reading one stream opens only the day partitions that
-- can hold it. The log gains a partition every day and keeps them all by default (`--log-retention-days
-- 0`); a read by (app_id, stream) alone is planned over every one of them, and PostgreSQL plans and locks
-- each partition it cannot rule out before it looks at any row: with three years of days (1,104
-- partitions) reading one stream took 287 ms, against 4 ms when the query names the stream's time span
-- (docs/benchmarks.md, "Stream reads over a long log"; docs/decisions.md, "Stream spans"). The console's
-- push and installation pages, `explain`, the push listing's origins and the audit report's push results
-- read streams that way (`StreamSpan`, `audit.sql`).
--
-- The span is exact: the earliest and latest `recorded_at` of the stream's own rows, taken from the same
-- transition table that advances the stream's version, so a clock that steps back cannot put a row
-- outside it. Dropping old partitions (log retention) only leaves the start earlier than the oldest row
-- still kept, which a reader does not mind.

-- Appends wait until this commits: one in flight could otherwise advance its head with the old function
-- after the backfill below has read the log without its rows.
LOCK TABLE events IN SHARE MODE;
ALTER TABLE stream_heads ADD COLUMN first_recorded_at timestamptz, ADD COLUMN last_recorded_at timestamptz;

-- Streams already in the log, from their rows. A stream whose every row was dropped before this keeps no
-- span (NULL), and readers find no rows for it without looking, which is what the log holds; its next
-- append gives it one.
UPDATE stream_heads h SET first_recorded_at = s.first_at, last_recorded_at = s.last_at
FROM (SELECT app_id, stream, min(recorded_at) AS first_at, max(recorded_at) AS last_at
      FROM events GROUP BY app_id, stream) s
WHERE h.app_id = s.app_id AND h.stream = s.stream;

-- As in 0011, plus the span: `least`/`greatest` ignore a NULL, so a head without a span takes the new rows'.
CREATE OR REPLACE FUNCTION events_advance_stream_heads() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    b record;
BEGIN
    FOR b IN
        SELECT app_id, stream, min(version) AS first, max(version) AS last, count(*) AS n,
               min(recorded_at) AS first_at, max(recorded_at) AS last_at
        FROM appended GROUP BY app_id, stream
    LOOP
        INSERT INTO stream_heads AS h (app_id, stream, version, first_recorded_at, last_recorded_at)
        SELECT b.app_id, b.stream, b.last, b.first_at, b.last_at WHERE b.last - b.first + 1 = b.n
        ON CONFLICT (app_id, stream) DO UPDATE
            SET version = excluded.version,
                first_recorded_at = least(h.first_recorded_at, excluded.first_recorded_at),
                last_recorded_at = greatest(h.last_recorded_at, excluded.last_recorded_at)
            WHERE h.version < b.first;
        IF NOT FOUND THEN
            -- Worded as the unique constraint it stands for, which LedgerTransaction.translate reads.
            RAISE EXCEPTION 'duplicate key value violates unique constraint "events_app_id_stream_version_key"'
                USING ERRCODE = 'unique_violation', CONSTRAINT = 'events_app_id_stream_version_key',
                      DETAIL = format('Key (app_id, stream, version)=(%s, %s, %s) already exists.',
                                      b.app_id, b.stream, b.first);
        END IF;
    END LOOP;
    RETURN NULL;
END $$;
