-- A batch's outcomes are recorded in parts while it is being sent (issue 43): `recorded` marks the targets
-- whose outcome is committed, bit i for targets[i] (NULL: none yet). A sender that takes over a lapsed lease
-- sends only the others, so what a crash can re-send is what was in flight or answered and not yet recorded:
-- at most a sender's window, never a whole batch.
ALTER TABLE push_batches ADD COLUMN recorded varbit;
