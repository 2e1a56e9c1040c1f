-- The event log: the single source of truth. Every other table is a projection of it.
--
-- Ordering: readers consume events in (transaction_id, position) order and only below the oldest running
-- transaction (pg_snapshot_xmin), so an event whose transaction commits late is never skipped. Appenders
-- take their stream locks before the transaction's first write (checked by the ledger), so two appends to
-- one stream always get increasing transaction ids in version order.
CREATE TABLE events (
    position bigint GENERATED ALWAYS AS IDENTITY,
    transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
    app_id text NOT NULL,
    stream text NOT NULL,
    version integer NOT NULL,
    type text NOT NULL,
    data jsonb NOT NULL,
    metadata jsonb NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (app_id, position),
    UNIQUE (app_id, stream, version)
);
CREATE INDEX events_global_order ON events (transaction_id, position);
CREATE INDEX events_by_type ON events (app_id, type, recorded_at);

-- Append-only: only the retention job's documented log-retention step may delete, and it must say so.
CREATE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('pushledger.log_retention', true) = 'on' THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'the event log is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_refuse_change();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change();

-- Where each asynchronous projector has got to in the global order.
CREATE TABLE projector_checkpoints (
    name text PRIMARY KEY,
    transaction_id xid8 NOT NULL DEFAULT '0',
    position bigint NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Projection of AppCreated / AppSettingsChanged (stream 'app' of each app).
CREATE TABLE apps (
    app_id text PRIMARY KEY,
    name text NOT NULL,
    app_key text NOT NULL,
    master_key text NOT NULL,
    settings jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    version integer NOT NULL
);

-- Projection of installation events. `data` holds every field but objectId/createdAt/updatedAt; the
-- generated columns are copies the delivery path and indexes need, so they can never disagree with it.
CREATE TABLE installations (
    app_id text NOT NULL,
    object_id text NOT NULL,
    data jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    version integer NOT NULL,
    device_type text NOT NULL GENERATED ALWAYS AS (data ->> 'deviceType') STORED,
    device_token text GENERATED ALWAYS AS (data ->> 'deviceToken') STORED,
    installation_id text GENERATED ALWAYS AS (data ->> 'installationId') STORED,
    registration_id text GENERATED ALWAYS AS (data ->> 'registrationId') STORED,
    device_profile text GENERATED ALWAYS AS (data ->> 'deviceProfile') STORED,
    valid boolean NOT NULL GENERATED ALWAYS AS (coalesce((data ->> 'valid')::boolean, true)) STORED,
    badge bigint GENERATED ALWAYS AS ((data ->> 'badge')::bigint) STORED,
    PRIMARY KEY (app_id, object_id)
);
CREATE UNIQUE INDEX installations_device_token ON installations (app_id, device_token) WHERE device_token IS NOT NULL;
CREATE UNIQUE INDEX installations_installation_id ON installations (app_id, installation_id)
    WHERE installation_id IS NOT NULL;
CREATE INDEX installations_channels ON installations USING gin ((data -> 'channels') jsonb_path_ops);
CREATE INDEX installations_updated ON installations (app_id, updated_at);
