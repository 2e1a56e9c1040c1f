-- The own device channel (SPEC §12.2). A message is stored here before it is written to any socket and
-- stays until the device acknowledges it, it expires, or newer messages push it over the device's cap;
-- each of those ends is an event on the push's stream (the ledger keeps the history, this table only the
-- work still open), and the row is deleted by the one transaction that records the end, so a result is
-- counted exactly once whichever server process the device is connected to.
CREATE TABLE channel_messages (
    id bigserial PRIMARY KEY,
    app_id text NOT NULL,
    -- What the device connects with (its installationId) and which installation that is.
    installation_id text NOT NULL,
    object_id text NOT NULL,
    push_id text NOT NULL,
    batch_no integer NOT NULL,
    platform text NOT NULL,
    data jsonb NOT NULL,
    expire_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX channel_messages_device ON channel_messages (app_id, installation_id, id);
CREATE INDEX channel_messages_batch ON channel_messages (app_id, push_id, batch_no);
CREATE INDEX channel_messages_expiry ON channel_messages (expire_at);

-- Messages dropped over a device's cap while it was away, told to the device when it next connects.
CREATE TABLE channel_drops (
    app_id text NOT NULL,
    installation_id text NOT NULL,
    dropped bigint NOT NULL,
    PRIMARY KEY (app_id, installation_id)
);

-- Projection of the presence streams (`presence:<objectId>`): whether a device holds a channel connection,
-- since when, and when it was last connected or disconnected. Only events write it, so a rebuild gives it back.
CREATE TABLE channel_presence (
    app_id text NOT NULL,
    object_id text NOT NULL,
    installation_id text NOT NULL,
    online boolean NOT NULL,
    since timestamptz NOT NULL,
    last_seen timestamptz NOT NULL,
    -- The connection this row describes: a disconnect only ends the session that connected.
    session text NOT NULL,
    PRIMARY KEY (app_id, object_id)
);


-- The heartbeat of live sessions (a work table, not an event: one per device every two minutes would flood
-- the log): the serving process refreshes `last_seen` of the sessions it holds, so a process that died
-- leaves rows that go stale, and `online` reads false after the ping interval and timeout.
CREATE TABLE channel_heartbeats (
    session text PRIMARY KEY,
    last_seen timestamptz NOT NULL
);
CREATE INDEX channel_heartbeats_age ON channel_heartbeats (last_seen);

-- Push records count their channel results like the providers' (the projections add to these).
ALTER TABLE notifications ADD COLUMN channel_pending bigint NOT NULL DEFAULT 0;
