-- What the schema needs to be distributed by app on Citus (docs/scaling.md), none of which changes what a
-- user of one PostgreSQL sees:
--
-- A distributed table's unique keys must contain its distribution column. The own channel's messages are
-- keyed by (app_id, id): every statement that reads one names its app. Schedule ids (`push_jobs`, the id of
-- `/scheduledPushMessages`) are unique per app, which is all the API needs: every lookup by schedule id is
-- an app's own.
--
-- The stream-head trigger advances each stream's head with one INSERT ... VALUES per appended stream and
-- lists outliers the same way, instead of INSERT ... SELECT over the transition table: Citus runs the
-- trigger on a worker's shard, where it plans a statement that reads the transition table as a distributed
-- query that cannot see it ("could not find named tuplestore"), and an INSERT ... SELECT of PL/pgSQL
-- variables as one whose parameters it loses ("there is no parameter $n"). The statements per append and
-- their work are the same as before.

ALTER TABLE channel_messages DROP CONSTRAINT channel_messages_pkey, ADD PRIMARY KEY (app_id, id);
ALTER TABLE push_jobs DROP CONSTRAINT push_jobs_schedule_id_key, ADD UNIQUE (app_id, schedule_id);

CREATE OR REPLACE FUNCTION events_advance_stream_heads() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    b record;
    o record;
    advanced boolean;
    outlying boolean := false;
BEGIN
    FOR b IN
        SELECT app_id, stream, min(version) AS first, max(version) AS last, count(*) AS n,
               min(recorded_at) AS first_at, max(recorded_at) AS last_at,
               bool_or(event_time(data, recorded_at) > recorded_at + event_time_outlier_margin()) AS outlying
        FROM appended GROUP BY app_id, stream
    LOOP
        advanced := false;
        IF b.last - b.first + 1 = b.n THEN
            INSERT INTO stream_heads AS h (app_id, stream, version, first_recorded_at, last_recorded_at)
            VALUES (b.app_id, b.stream, b.last, b.first_at, b.last_at)
            ON CONFLICT (app_id, stream) DO UPDATE
                SET version = excluded.version,
                    first_recorded_at = least(h.first_recorded_at, excluded.first_recorded_at),
                    last_recorded_at = greatest(h.last_recorded_at, excluded.last_recorded_at)
                WHERE h.version < b.first;
            advanced := FOUND;
        END IF;
        IF NOT advanced THEN
            -- Worded as the unique constraint it stands for, which LedgerTransaction.translate reads (by the
            -- constraint's name, and by the message where Citus passes a worker's error on without it).
            RAISE EXCEPTION 'duplicate key value violates unique constraint "events_app_id_stream_version_key"'
                USING ERRCODE = 'unique_violation', CONSTRAINT = 'events_app_id_stream_version_key',
                      DETAIL = format('Key (app_id, stream, version)=(%s, %s, %s) already exists.',
                                      b.app_id, b.stream, b.first);
        END IF;
        outlying := outlying OR b.outlying;
    END LOOP;
    -- Nearly every append has no outlier: the second loop runs only when there is one to list.
    IF outlying THEN
        FOR o IN
            SELECT app_id, (recorded_at AT TIME ZONE 'UTC')::date AS day, min(recorded_at) AS earliest,
                   max(event_time(data, recorded_at)) AS latest
            FROM appended
            WHERE event_time(data, recorded_at) > recorded_at + event_time_outlier_margin()
            GROUP BY 1, 2
        LOOP
            INSERT INTO event_time_outliers AS t (app_id, recorded_day, earliest_recorded_at, latest_event_time)
            VALUES (o.app_id, o.day, o.earliest, o.latest)
            ON CONFLICT (app_id, recorded_day) DO UPDATE
                SET earliest_recorded_at = least(t.earliest_recorded_at, excluded.earliest_recorded_at),
                    latest_event_time = greatest(t.latest_event_time, excluded.latest_event_time);
        END LOOP;
    END IF;
    RETURN NULL;
END $$;
