-- Windows through WNS (issue 15): a Windows installation is reached at its WNS channel URI, kept like the
-- other tokens as a generated copy of its field, and push records count Windows successes beside iOS and
-- Android ones.
ALTER TABLE installations
    ADD COLUMN subscription_uri text GENERATED ALWAYS AS (data ->> 'subscriptionUri') STORED;

ALTER TABLE notifications ADD COLUMN windows_successes bigint NOT NULL DEFAULT 0;
ALTER TABLE push_stats ADD COLUMN windows_successes bigint NOT NULL DEFAULT 0;
