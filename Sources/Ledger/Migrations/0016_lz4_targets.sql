-- Fan-out (issue 18): a targeting page writes its targets (about 120 kB of JSON per 1,000 devices) into
-- the `PushTargeted` event, and the page's batch row holds the same list. Both values are compressed when
-- stored: copying a page's targets from its event took 0.80-0.95 ms with pglz and 0.17-0.20 ms with lz4,
-- whose values were about a third larger (docs/decisions.md). From now on the event log's data and the batch rows' targets are compressed with
-- lz4: existing day partitions and the default one, the partitioned table (whose compression a partition
-- made with PARTITION OF takes) and, below, the day partitions made later. Values already stored keep
-- their compression. A PostgreSQL built without lz4 refuses the setting; pglz then stays.
DO $$
DECLARE
    partition regclass;
BEGIN
    ALTER TABLE push_batches ALTER COLUMN targets SET COMPRESSION lz4;
    ALTER TABLE events ALTER COLUMN data SET COMPRESSION lz4;
    FOR partition IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'events'::regclass LOOP
        EXECUTE format('ALTER TABLE %s ALTER COLUMN data SET COMPRESSION lz4', partition);
    END LOOP;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'this PostgreSQL has no lz4: stored values stay compressed with pglz';
END $$;

-- Day partitions are made with LIKE (then attached); INCLUDING COMPRESSION carries the column's method.
CREATE OR REPLACE FUNCTION pushledger_event_partition(day date) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    name text := 'events_' || to_char(day, 'YYYYMMDD');
    lower_bound timestamptz := day::timestamp AT TIME ZONE 'UTC';
BEGIN
    IF to_regclass(format('public.%I', name)) IS NOT NULL THEN
        RETURN name;
    END IF;
    EXECUTE format('CREATE TABLE public.%I (LIKE events INCLUDING DEFAULTS INCLUDING COMPRESSION)', name);
    EXECUTE format('ALTER TABLE events ATTACH PARTITION public.%I FOR VALUES FROM (%L) TO (%L)',
                   name, lower_bound, lower_bound + interval '1 day');
    -- Statement triggers are not inherited: TRUNCATE of the partition itself must be refused too.
    EXECUTE format('CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON public.%I '
                   'FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change()', name);
    RETURN name;
END $$;
