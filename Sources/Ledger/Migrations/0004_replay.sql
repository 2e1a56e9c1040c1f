-- Replay (SPEC §9): InstallationProjection as an ordered aggregate, so `pushledger replay` folds a million
-- installation events in a few set-based statements instead of one UPDATE per event. Each branch of the
-- step mirrors one branch of InstallationProjection.apply (same expressions, same NULL handling); the
-- Replay tests prove the fold equal to the live `installations` table and to the per-event fold.

-- One installation row while its stream is folded; a NULL state (or NULL data) means "no row".
CREATE TYPE installation_replay_state AS (
    data jsonb,
    created_at timestamptz,
    updated_at timestamptz,
    version integer
);

-- The keys an InstallationUpdated removes: the string elements of `unset`, as the projection's
-- `compactMap(\.stringValue)` keeps them.
CREATE FUNCTION installation_replay_unset(d jsonb) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(u #>> '{}'), '{}')
    FROM jsonb_array_elements(CASE WHEN jsonb_typeof(d -> 'unset') = 'array' THEN d -> 'unset' ELSE '[]' END) u
    WHERE jsonb_typeof(u) = 'string'
$$;

-- Applies one event (of the types InstallationProjection handles) to the row as it stands.
CREATE FUNCTION installation_replay_step(s installation_replay_state, type text, d jsonb, version integer)
    RETURNS installation_replay_state LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
    badge jsonb;
BEGIN
    IF type = 'InstallationCreated' THEN
        RETURN ROW(coalesce(d -> 'fields', '{}'::jsonb), (d ->> 'createdAt')::timestamptz,
                   (d ->> 'updatedAt')::timestamptz, version);
    END IF;
    -- The projection's UPDATE/DELETE match no row when there is none: nothing changes.
    IF s.data IS NULL THEN
        RETURN NULL;
    END IF;
    IF type = 'InstallationUpdated' THEN
        RETURN ROW((s.data || coalesce(d -> 'set', '{}'::jsonb)) - installation_replay_unset(d), s.created_at,
                   (d ->> 'updatedAt')::timestamptz, version);
    ELSIF type IN ('BadgeReset', 'BadgeIncremented', 'AppOpened') THEN
        badge := CASE WHEN type = 'BadgeReset' THEN '0'::jsonb ELSE coalesce(d -> 'badge', 'null'::jsonb) END;
        RETURN ROW(CASE WHEN badge = 'null'::jsonb THEN s.data ELSE jsonb_set(s.data, '{badge}', badge) END,
                   s.created_at, coalesce((d ->> 'updatedAt')::timestamptz, s.updated_at), version);
    END IF;
    -- InstallationDeleted, InstallationInvalidated, InstallationExpired: the row goes.
    RETURN NULL;
END $$;

-- Use with ORDER BY transaction_id, position (the log order the projection applies events in).
CREATE AGGREGATE installation_replay_fold(type text, d jsonb, version integer) (
    SFUNC = installation_replay_step,
    STYPE = installation_replay_state
);
