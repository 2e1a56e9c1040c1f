-- A generated push history for the reports-from-events comparison, written straight into the log (the
-- projections come from `rebuild`): :pushes pushes of app :'app' at random times over the 90 days before
-- :'t0' (several in one minute, some at local midnight), one to three batches of up to 40 targets each,
-- part of each delivered, and opens of random targets — some repeated, some without a push, hours to days
-- after delivery, on both platforms. Random but seeded (:seed in [-1, 1]).
-- psql variables: app, t0, pushes, seed.
SELECT setseed(:seed);
CREATE TEMP TABLE gen_pushes AS
SELECT p, 'push' || lpad(p::text, 8, '0') AS id,
       CASE WHEN p % 7 = 0 THEN :'t0'::timestamptz - make_interval(days => p % 90) - interval '8 hours'
            WHEN p % 5 = 0 THEN :'t0'::timestamptz - interval '3 days' + make_interval(secs => p % 4)
            ELSE :'t0'::timestamptz - make_interval(secs => (random() * 90 * 86400)::int) END AS at,
       1 + (random() * 2)::int AS batches
FROM generate_series(1, :pushes) p;
CREATE TEMP TABLE gen_targets AS
SELECT p.id, p.at, b, 'inst' || p.p || '_' || b || '_' || t AS o, CASE WHEN t % 3 = 0 THEN 'android' ELSE 'ios' END AS pl,
       random() < 0.85 AS delivered
-- The sizes come from the row itself: a set-returning function whose arguments name no outer column is
-- evaluated once for the whole query.
FROM gen_pushes p, generate_series(0, p.batches - 1) b,
     LATERAL generate_series(1, 1 + abs(hashtext(p.id || b || :seed)) % 40) t;
CREATE FUNCTION pg_temp.iso(t timestamptz) RETURNS text LANGUAGE sql AS
    $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

INSERT INTO events (app_id, stream, version, type, data, metadata)
SELECT :'app', 'push:' || id, 1, 'PushRequested',
       jsonb_build_object('objectId', id, 'at', pg_temp.iso(at), 'status', 'in-queue',
           'request', jsonb_build_object('data', jsonb_build_object('alert', 'hi'), 'prod', 'prod', 'where', '{}'::jsonb)),
       '{"keyKind":"master"}'
FROM gen_pushes;
INSERT INTO events (app_id, stream, version, type, data, metadata)
SELECT :'app', 'push:' || id, 2 + b, 'PushTargeted',
       jsonb_build_object('objectId', id, 'at', pg_temp.iso(at), 'batch', b,
           'targets', jsonb_agg(jsonb_build_object('o', o, 't', pl, 'k', md5(o)) ORDER BY o)),
       '{"keyKind":"system"}'
FROM gen_targets GROUP BY id, at, b;
INSERT INTO events (app_id, stream, version, type, data, metadata)
SELECT :'app', 'push:' || id, 100 + b, 'PushBatchDelivered',
       jsonb_build_object('objectId', id, 'at', pg_temp.iso(at + interval '2 seconds'), 'batch', b,
           'successes', count(*) FILTER (WHERE delivered),
           'iosSuccesses', count(*) FILTER (WHERE delivered AND pl = 'ios'),
           'androidSuccesses', count(*) FILTER (WHERE delivered AND pl = 'android'),
           'errors', count(*) FILTER (WHERE NOT delivered), 'invalidTokens', 0,
           'reasons', '{}'::jsonb, 'failures', '{}'::jsonb),
       '{"keyKind":"system"}'
FROM gen_targets GROUP BY id, at, b;
INSERT INTO events (app_id, stream, version, type, data, metadata)
SELECT :'app', 'push:' || id, 200, 'PushCompleted', jsonb_build_object('objectId', id, 'at', pg_temp.iso(at + interval '3 seconds')),
       '{"keyKind":"system"}'
FROM gen_pushes;

-- Opens: a third of the delivered targets open, some of them more than once; plus opens without a push.
CREATE TEMP TABLE gen_opens AS
SELECT o, pl, id, at + interval '2 seconds' AS delivered_at,
       at + interval '2 seconds' + make_interval(secs => (random() * 3 * 86400)::int) AS opened_at
FROM gen_targets, LATERAL generate_series(1, 1 + abs(hashtext(o || :seed)) % 2) n
WHERE delivered AND random() < 0.35;
INSERT INTO events (app_id, stream, version, type, data, metadata)
SELECT :'app', 'installation:' || o, row_number() OVER (PARTITION BY o ORDER BY opened_at), 'AppOpened',
       jsonb_build_object('objectId', o, 'kind', 'push', 'platform', pl, 'pushId', id, 'attribution', 'explicit',
           'deliveredAt', pg_temp.iso(delivered_at), 'at', pg_temp.iso(opened_at), 'updatedAt', pg_temp.iso(opened_at)),
       '{"keyKind":"client"}'
FROM (SELECT * FROM gen_opens ORDER BY opened_at) x;
INSERT INTO events (app_id, stream, version, type, data, metadata)
SELECT :'app', 'installation:plain' || g, 1, 'AppOpened',
       jsonb_build_object('objectId', 'plain' || g, 'kind', 'app', 'platform', 'ios',
           'at', pg_temp.iso(:'t0'::timestamptz - make_interval(secs => g * 977)),
           'updatedAt', pg_temp.iso(:'t0'::timestamptz - make_interval(secs => g * 977))),
       '{"keyKind":"client"}'
FROM generate_series(1, :pushes) g;
