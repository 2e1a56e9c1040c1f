-- Push records: the projection of push events (SPEC §4.5), applied inline with each append.
CREATE TABLE notifications (
    app_id text NOT NULL,
    object_id text NOT NULL,
    notification_id text,
    data jsonb NOT NULL,
    where_query jsonb NOT NULL,
    prod text NOT NULL,
    status text NOT NULL,
    devices bigint NOT NULL DEFAULT 0,
    successes bigint NOT NULL DEFAULT 0,
    errors bigint NOT NULL DEFAULT 0,
    invalid_tokens bigint NOT NULL DEFAULT 0,
    ios_successes bigint NOT NULL DEFAULT 0,
    android_successes bigint NOT NULL DEFAULT 0,
    opens bigint NOT NULL DEFAULT 0,
    push_time timestamptz,
    expiration_time timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (app_id, object_id)
);
CREATE INDEX notifications_created ON notifications (app_id, created_at);

-- Work state of the fan-out (not a projection: it is written by the delivery workers in the same
-- transactions as the events that describe their progress, and `rebuild` leaves it alone).
CREATE TABLE push_jobs (
    app_id text NOT NULL,
    push_id text NOT NULL,
    schedule_id bigint GENERATED ALWAYS AS IDENTITY,
    state text NOT NULL,                -- scheduled | targeting | sending | done | cancelled
    send_at timestamptz NOT NULL,
    expires_at timestamptz,
    request jsonb NOT NULL,             -- the validated push request
    cursor_object_id text,              -- keyset position of targeting
    batches integer NOT NULL DEFAULT 0,
    targeted bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, push_id),
    UNIQUE (schedule_id)
);
CREATE INDEX push_jobs_due ON push_jobs (send_at) WHERE state IN ('scheduled', 'targeting');

CREATE TABLE push_batches (
    app_id text NOT NULL,
    push_id text NOT NULL,
    batch_no integer NOT NULL,
    targets jsonb NOT NULL,             -- [{objectId, deviceType, token, channel, badge, profile}]
    state text NOT NULL DEFAULT 'pending',  -- pending | done | cancelled
    claimed_by text,
    claimed_until timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, push_id, batch_no)
);
CREATE INDEX push_batches_pending ON push_batches (created_at) WHERE state = 'pending';

-- req_id de-duplication for five minutes (SPEC §4.1).
CREATE TABLE push_request_ids (
    app_id text NOT NULL,
    req_id text NOT NULL,
    push_id text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, req_id)
);

-- Tokens a provider declared invalid, skipped by /push/devices until registered again (SPEC §5).
CREATE TABLE invalid_tokens (
    app_id text NOT NULL,
    token text NOT NULL,
    reason text NOT NULL,
    invalid_since timestamptz NOT NULL,
    PRIMARY KEY (app_id, token)
);
