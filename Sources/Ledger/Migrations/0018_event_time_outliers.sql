-- Rows whose own time lies more than a day after they were recorded, so that a reader of the log by
-- `event_time` (the audit report) can tell which day partitions may hold the times it asks for. Nearly
-- every row's time is the moment the server wrote it, at or a moment before `recorded_at`, and a history
-- imported with its own times is normally dated before it is recorded. So a row whose time is at or after
-- an instant T lies in a partition no older than T - 1 day, unless it is listed here. Without that bound
-- the audit's scan and its lookups were planned over every day partition the log keeps: about 2.5 s with
-- three years of days (docs/benchmarks.md, "The audit over a long log"; docs/decisions.md, "Event time
-- outliers").
--
-- One row per app and UTC day of `recorded_at` that holds such rows: the earliest `recorded_at` and the
-- latest event time among them. Kept by the statement trigger that advances stream heads, from the same
-- transition table, so it is exact whatever the clocks do. Dropping old partitions (log retention) leaves
-- rows for days that are gone, which only make a reader start earlier than it needs to.

-- Appends wait until this commits: one in flight could otherwise append an outlier with the old function
-- after the backfill below has read the log without it.
LOCK TABLE events IN SHARE MODE;

-- How much later than its recording a row may be dated without being listed: the one definition the
-- trigger, the backfill below and the audit's bound (AuditScanBounds) read, so they cannot disagree.
CREATE FUNCTION event_time_outlier_margin() RETURNS interval LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT interval '1 day'
$$;

CREATE TABLE event_time_outliers (
    app_id text NOT NULL,
    recorded_day date NOT NULL,
    earliest_recorded_at timestamptz NOT NULL,
    latest_event_time timestamptz NOT NULL,
    PRIMARY KEY (app_id, recorded_day)
);

INSERT INTO event_time_outliers (app_id, recorded_day, earliest_recorded_at, latest_event_time)
SELECT app_id, (recorded_at AT TIME ZONE 'UTC')::date, min(recorded_at), max(event_time(data, recorded_at))
FROM events
WHERE event_time(data, recorded_at) > recorded_at + event_time_outlier_margin()
GROUP BY 1, 2;

-- As in 0017, plus the outliers among the appended rows.
CREATE OR REPLACE FUNCTION events_advance_stream_heads() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    b record;
    outlying boolean := false;
BEGIN
    FOR b IN
        SELECT app_id, stream, min(version) AS first, max(version) AS last, count(*) AS n,
               min(recorded_at) AS first_at, max(recorded_at) AS last_at,
               bool_or(event_time(data, recorded_at) > recorded_at + event_time_outlier_margin()) AS outlying
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
        outlying := outlying OR b.outlying;
    END LOOP;
    -- A second statement only when there is something to write: nearly every append has no outlier.
    IF outlying THEN
        INSERT INTO event_time_outliers AS o (app_id, recorded_day, earliest_recorded_at, latest_event_time)
        SELECT app_id, (recorded_at AT TIME ZONE 'UTC')::date, min(recorded_at),
               max(event_time(data, recorded_at))
        FROM appended
        WHERE event_time(data, recorded_at) > recorded_at + event_time_outlier_margin()
        GROUP BY 1, 2
        ON CONFLICT (app_id, recorded_day) DO UPDATE
            SET earliest_recorded_at = least(o.earliest_recorded_at, excluded.earliest_recorded_at),
                latest_event_time = greatest(o.latest_event_time, excluded.latest_event_time);
    END IF;
    RETURN NULL;
END $$;
