-- Issue 18: the indexes of migration 0013 held an entry for every installation, most of them with no
-- `owner` or `user` at all (a NULL key): every save paid for two index entries it would never be found by,
-- and a rebuild of 8M installations spent 8.5-11.6 s building them. Only installations whose field holds a
-- Pointer are indexed now. The where compiler's `$inQuery` states `(… ->> '__type') = 'Pointer'` next to
-- the join on the objectId, so the planner can prove the predicate and use the index as before.
DROP INDEX IF EXISTS installations_owner_pointer;
DROP INDEX IF EXISTS installations_user_pointer;
CREATE INDEX IF NOT EXISTS installations_owner_pointer ON installations (app_id, (data -> 'owner' ->> 'objectId')) WHERE (data -> 'owner' ->> '__type') = 'Pointer';
CREATE INDEX IF NOT EXISTS installations_user_pointer ON installations (app_id, (data -> 'user' ->> 'objectId')) WHERE (data -> 'user' ->> '__type') = 'Pointer';
