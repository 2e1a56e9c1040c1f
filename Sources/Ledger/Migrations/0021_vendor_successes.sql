-- Per-vendor success counts of a push record (SPEC §12.3): `hmsSuccesses`, `miSuccesses`, … `fcmSuccesses`,
-- `lcSuccesses` (the own channel), kept as one object of counts by counter name, added to as `error_reasons`
-- is, so a new vendor needs no new column. `androidSuccesses` stays their sum.
ALTER TABLE notifications ADD COLUMN vendor_successes jsonb NOT NULL DEFAULT '{}';
-- The same counts in the opens report's per-push aggregates, which outlive the record.
ALTER TABLE push_stats ADD COLUMN vendor_successes jsonb NOT NULL DEFAULT '{}';
