-- Usage counters, limits and open tracking (SPEC §4.8, §6, §9). Every table here but `last_deliveries` is
-- a projection of events, rebuilt by `rebuild --verify`. Days and minutes are in the app's time zone at
-- the time of the event (`apps.settings.timezone`, default UTC); event times are the times in the event
-- data (`at`, `updatedAt`), not `recorded_at`, so a replayed or simulated history lands on the same days.

-- Per app and day: accepted push calls, their peak in any one minute, targeted devices, provider-accepted
-- deliveries, refusals, and whether the retention job has closed the day for billing.
CREATE TABLE daily_usage (
    app_id text NOT NULL,
    day date NOT NULL,
    calls bigint NOT NULL DEFAULT 0,
    peak_calls_per_minute bigint NOT NULL DEFAULT 0,
    devices bigint NOT NULL DEFAULT 0,
    successes bigint NOT NULL DEFAULT 0,
    rate_limit_bans bigint NOT NULL DEFAULT 0,
    quota_refusals bigint NOT NULL DEFAULT 0,
    closed boolean NOT NULL DEFAULT false,
    PRIMARY KEY (app_id, day)
);

-- Accepted push calls per app and local minute: the source of the daily peak and of the rate limit.
CREATE TABLE minute_calls (
    app_id text NOT NULL,
    minute timestamp NOT NULL,
    calls bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, minute)
);

-- The rate-limit ban of each app (SPEC §4.8): every push call is refused until `banned_until`.
CREATE TABLE push_bans (
    app_id text PRIMARY KEY,
    banned_until timestamptz NOT NULL
);

-- Per push: the counters of the push record, kept after the record itself is purged (reports keep their
-- aggregates), plus opens.
CREATE TABLE push_stats (
    app_id text NOT NULL,
    push_id text NOT NULL,
    notification_id text,
    created_at timestamptz NOT NULL,
    devices bigint NOT NULL DEFAULT 0,
    successes bigint NOT NULL DEFAULT 0,
    ios_successes bigint NOT NULL DEFAULT 0,
    android_successes bigint NOT NULL DEFAULT 0,
    errors bigint NOT NULL DEFAULT 0,
    opens bigint NOT NULL DEFAULT 0,
    unique_opens bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, push_id)
);
CREATE INDEX push_stats_created ON push_stats (app_id, created_at);

-- Per push and opening installation: its opens and the time from delivery to the first one.
CREATE TABLE push_opens (
    app_id text NOT NULL,
    push_id text NOT NULL,
    installation_id text NOT NULL,
    platform text NOT NULL,
    first_open_at timestamptz NOT NULL,
    seconds_to_open double precision,
    opens bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, push_id, installation_id)
);

-- Per app, local day and platform: deliveries, push opens (all and first per push and installation) and
-- plain app opens.
CREATE TABLE daily_opens (
    app_id text NOT NULL,
    day date NOT NULL,
    platform text NOT NULL,
    successes bigint NOT NULL DEFAULT 0,
    push_opens bigint NOT NULL DEFAULT 0,
    unique_push_opens bigint NOT NULL DEFAULT 0,
    app_opens bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, day, platform)
);

-- Work state, not a projection: the last push delivered to each installation, written with the batch
-- outcome, so an open without `_nid` can be attributed (SPEC §6). The attribution is then recorded in
-- the open's event, so projections never need this table.
CREATE TABLE last_deliveries (
    app_id text NOT NULL,
    installation_id text NOT NULL,
    push_id text NOT NULL,
    delivered_at timestamptz NOT NULL,
    PRIMARY KEY (app_id, installation_id)
);

-- When an event happened: the time in its data (`at` where the event has one, else `updatedAt` for
-- installation changes, `createdAt` for creations), else when it was recorded. Reports, replay and explain all use this, so a
-- history imported or simulated with its own times is read on those times.
CREATE FUNCTION event_time(data jsonb, recorded_at timestamptz) RETURNS timestamptz
    LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce((data ->> 'at')::timestamptz, (data ->> 'updatedAt')::timestamptz,
                    (data ->> 'createdAt')::timestamptz, recorded_at)
$$;
