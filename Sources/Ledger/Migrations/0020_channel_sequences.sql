-- The own channel's message ids are a per-device sequence (SPEC §12.2): a device sees 1, 2, 3… whatever
-- other devices receive, so a gap means a dropped message and an id says how many came before. `seq` is
-- assigned when a batch stores its messages, from the device's row here, which the storing transaction
-- locks (in installationId order, so concurrent batches never deadlock).
CREATE TABLE channel_sequences (
    app_id text NOT NULL,
    installation_id text NOT NULL,
    last_seq bigint NOT NULL,
    PRIMARY KEY (app_id, installation_id)
);

ALTER TABLE channel_messages ADD COLUMN seq bigint;
UPDATE channel_messages c SET seq = n.seq
FROM (SELECT id, row_number() OVER (PARTITION BY app_id, installation_id ORDER BY id) AS seq
      FROM channel_messages) n
WHERE c.id = n.id;
INSERT INTO channel_sequences (app_id, installation_id, last_seq)
SELECT app_id, installation_id, max(seq) FROM channel_messages GROUP BY app_id, installation_id;
ALTER TABLE channel_messages ALTER COLUMN seq SET NOT NULL;
DROP INDEX channel_messages_device;
CREATE UNIQUE INDEX channel_messages_device ON channel_messages (app_id, installation_id, seq);
