-- Related targeting (issue 16): the seed's `{"owner": {"$inQuery": …}}` joins installations on the objectId
-- their Pointer names. `owner` and `user` are the fields the seed guides and SDKs use for it; an index on the
-- pointed objectId lets the planner start from the few users a sub-query matches (scripts/bench-related-geo:
-- milliseconds instead of a scan of every installation). Same expression the where compiler emits.
CREATE INDEX IF NOT EXISTS installations_owner_pointer ON installations (app_id, (data -> 'owner' ->> 'objectId'));
CREATE INDEX IF NOT EXISTS installations_user_pointer ON installations (app_id, (data -> 'user' ->> 'objectId'));
