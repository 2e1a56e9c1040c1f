-- The event log, range-partitioned by recorded_at: one partition per UTC day (`events_YYYYMMDD`) plus
-- `events_default`, which catches a row whose day has no partition yet. Log retention then drops whole
-- days instead of deleting row by row (docs/decisions.md, "Partitioned event log").
--
-- What stays as it was: the columns, the global position (the same identity sequence values, continued),
-- the transaction ids, and so the global order (transaction_id, position) and the late-commit guarantee,
-- which never depended on where a row is stored. What changes: a unique constraint on a partitioned table
-- must contain the partition key, so neither (app_id, position) nor (app_id, stream, version) can stay a
-- plain unique constraint. Positions come from one sequence, so they stay unique by construction; stream
-- versions are guarded by `stream_heads` below, which refuses exactly what the old unique constraint did
-- (with the same SQLSTATE and constraint name, so a lost race is still a VersionConflict).

-- The populated table moves aside; its rows are copied below, then it goes.
ALTER TABLE events RENAME TO events_unpartitioned;
DROP TRIGGER events_append_only ON events_unpartitioned;
DROP TRIGGER events_no_truncate ON events_unpartitioned;
ALTER TABLE events_unpartitioned DROP CONSTRAINT events_pkey;
ALTER TABLE events_unpartitioned DROP CONSTRAINT events_app_id_stream_version_key;
DROP INDEX events_global_order;
DROP INDEX events_by_type;

-- The same columns, defaults and identity (a new sequence, set past the old positions below).
CREATE TABLE events (LIKE events_unpartitioned INCLUDING DEFAULTS INCLUDING IDENTITY)
    PARTITION BY RANGE (recorded_at);

-- Log trims, so `rebuild` can tell a trimmed log (which no longer holds every stream's beginning) from
-- a whole one.
CREATE TABLE event_log_trims (
    partition text PRIMARY KEY,
    trimmed_before timestamptz NOT NULL,
    trimmed_at timestamptz NOT NULL DEFAULT now()
);

-- The version each stream has reached. It replaces UNIQUE (app_id, stream, version), which partitioning
-- by time cannot keep, and it outlives log trims, so a stream whose old events were dropped still goes on
-- from its last version instead of starting again at 1.
CREATE TABLE stream_heads (
    app_id text NOT NULL,
    stream text NOT NULL,
    version integer NOT NULL,
    PRIMARY KEY (app_id, stream)
);

-- The UTC day partition for `day`, created (empty, so attaching needs no scan) unless it exists. Attached
-- rather than created as PARTITION OF: ATTACH takes SHARE UPDATE EXCLUSIVE on `events`, so appends go on.
CREATE FUNCTION pushledger_event_partition(day date) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    name text := 'events_' || to_char(day, 'YYYYMMDD');
    lower_bound timestamptz := day::timestamp AT TIME ZONE 'UTC';
BEGIN
    IF to_regclass(format('public.%I', name)) IS NOT NULL THEN
        RETURN name;
    END IF;
    EXECUTE format('CREATE TABLE public.%I (LIKE events INCLUDING DEFAULTS)', name);
    EXECUTE format('ALTER TABLE events ATTACH PARTITION public.%I FOR VALUES FROM (%L) TO (%L)',
                   name, lower_bound, lower_bound + interval '1 day');
    -- Statement triggers are not inherited: TRUNCATE of the partition itself must be refused too.
    EXECUTE format('CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON public.%I '
                   'FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change()', name);
    RETURN name;
END $$;

-- Moves rows that landed in `events_default` (no partition existed for their day: the service was down
-- longer than partitions were made ahead, or the clock jumped) into day partitions. A day partition
-- cannot be attached while the default holds rows of that day, so the default is detached, replaced by
-- an empty one, and its rows copied into their days. Positions and transaction ids are copied unchanged,
-- so the global order is untouched. Returns the rows moved.
CREATE FUNCTION pushledger_event_default_drain() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    day date;
    moved bigint := 0;
    n bigint;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM events_default) THEN
        RETURN 0;
    END IF;
    ALTER TABLE events DETACH PARTITION events_default;
    ALTER TABLE events_default RENAME TO events_default_draining;
    CREATE TABLE events_default PARTITION OF events DEFAULT;
    CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events_default
        FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change();
    FOR day IN SELECT DISTINCT (recorded_at AT TIME ZONE 'UTC')::date FROM events_default_draining ORDER BY 1 LOOP
        -- Straight into the partition: the rows are already in the log, and `stream_heads` counted them.
        EXECUTE format('INSERT INTO public.%I SELECT * FROM events_default_draining '
                       'WHERE (recorded_at AT TIME ZONE ''UTC'')::date = %L', pushledger_event_partition(day), day);
        GET DIAGNOSTICS n = ROW_COUNT;
        moved := moved + n;
    END LOOP;
    DROP TABLE events_default_draining;
    RETURN moved;
END $$;

-- Partitions from yesterday (UTC) to `days_ahead` days ahead, after draining the default. Called when
-- `serve` starts and by every retention run; several processes may call it at once (advisory lock).
-- Returns the partitions that exist for that range.
CREATE FUNCTION pushledger_event_partitions_prepare(days_ahead integer) RETURNS integer
    LANGUAGE plpgsql AS $$
DECLARE
    today date := (now() AT TIME ZONE 'UTC')::date;
    day date;
    n integer := 0;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('pushledger_event_partitions', 0));
    PERFORM pushledger_event_default_drain();
    FOR day IN SELECT generate_series(today - 1, today + days_ahead, interval '1 day')::date LOOP
        PERFORM pushledger_event_partition(day);
        n := n + 1;
    END LOOP;
    RETURN n;
END $$;

-- The log-retention step (SPEC §7, §8): drops every day partition that ends at or before `cutoff` and
-- records it in `event_log_trims`. Whole partitions only: a day still partly inside the window is kept
-- whole, so the log keeps at least, never less than, what the window asks for.
CREATE FUNCTION pushledger_event_partitions_drop(cutoff timestamptz)
    RETURNS TABLE (dropped text, dropped_before timestamptz) LANGUAGE plpgsql AS $$
DECLARE
    day date;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('pushledger_event_partitions', 0));
    PERFORM pushledger_event_default_drain();
    FOR dropped, day IN
        SELECT c.relname, to_date(substr(c.relname, 8), 'YYYYMMDD')
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'events'::regclass AND c.relname ~ '^events_[0-9]{8}$'
        ORDER BY 1
    LOOP
        dropped_before := (day + 1)::timestamp AT TIME ZONE 'UTC';
        CONTINUE WHEN dropped_before > cutoff;
        EXECUTE format('DROP TABLE public.%I', dropped);
        INSERT INTO event_log_trims AS t (partition, trimmed_before) VALUES (dropped, dropped_before)
            ON CONFLICT ON CONSTRAINT event_log_trims_pkey DO NOTHING;
        RETURN NEXT;
    END LOOP;
END $$;

-- Day partitions for every day the old table holds, and for the days around now.
CREATE TABLE events_default PARTITION OF events DEFAULT;
SELECT pushledger_event_partition(d)
FROM (SELECT DISTINCT (recorded_at AT TIME ZONE 'UTC')::date AS d FROM events_unpartitioned) days;
SELECT pushledger_event_partitions_prepare(7);

-- The rows, with their positions, transaction ids and times, in one statement.
INSERT INTO events OVERRIDING SYSTEM VALUE SELECT * FROM events_unpartitioned;
SELECT setval(pg_get_serial_sequence('events', 'position'),
              coalesce((SELECT max(position) FROM events_unpartitioned), 0) + 1, false);
INSERT INTO stream_heads (app_id, stream, version)
SELECT app_id, stream, max(version) FROM events_unpartitioned GROUP BY app_id, stream;
DROP TABLE events_unpartitioned;

-- Built once over the copied rows rather than row by row during the copy. The primary key must hold the
-- partition key; app_id first, so it is also the key a distributed log would use (docs/scaling.md).
ALTER TABLE events ADD PRIMARY KEY (app_id, position, recorded_at);
CREATE INDEX events_global_order ON events (transaction_id, position);
CREATE INDEX events_by_type ON events (app_id, type, recorded_at);
-- What UNIQUE (app_id, stream, version) used to serve: reading one stream in version order.
CREATE INDEX events_by_stream ON events (app_id, stream, version);

CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_refuse_change();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change();
DO $$
DECLARE
    p regclass;
BEGIN
    FOR p IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'events'::regclass LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = p AND tgname = 'events_no_truncate') THEN
            EXECUTE format('CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON %s '
                           'FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change()', p);
        END IF;
    END LOOP;
END $$;

-- Advances each appended stream's head, once per INSERT statement, and refuses the statement when a
-- stream's first appended version is not above its head (another writer got there first) or one stream's
-- versions in the statement are not consecutive (two appends claimed the same version). A concurrent
-- writer of the same stream waits on the head row, and ON CONFLICT's condition is then checked on the
-- row it committed, so this holds without the stream locks. One statement per stream rather than one
-- join for all: the transition table has no statistics, and a join planned as if it were large scanned
-- the whole of `stream_heads` on every append.
CREATE FUNCTION events_advance_stream_heads() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    b record;
BEGIN
    FOR b IN
        SELECT app_id, stream, min(version) AS first, max(version) AS last, count(*) AS n
        FROM appended GROUP BY app_id, stream
    LOOP
        INSERT INTO stream_heads AS h (app_id, stream, version)
        SELECT b.app_id, b.stream, b.last WHERE b.last - b.first + 1 = b.n
        ON CONFLICT (app_id, stream) DO UPDATE SET version = excluded.version WHERE h.version < b.first;
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
CREATE TRIGGER events_stream_heads AFTER INSERT ON events REFERENCING NEW TABLE AS appended
    FOR EACH STATEMENT EXECUTE FUNCTION events_advance_stream_heads();
