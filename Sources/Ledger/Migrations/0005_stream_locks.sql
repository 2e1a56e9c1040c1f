-- Stream locks as one statement whose result nobody needs to read, so a writer can pipeline it with the
-- statements after it (BEGIN, the lock, the first read: one round trip) instead of waiting for a row
-- that says whether the lock came too late.
--
-- Takes the transaction-scoped advisory locks for `keys` of app `app`, in sorted order (so two writers
-- never wait for each other in a cycle), and refuses with SQLSTATE PL001 when the transaction has
-- already written: its transaction id would then be older than a writer it waited for, and the log's
-- global order (transaction id, position) would disagree with the stream's own version order.
CREATE FUNCTION pushledger_lock_streams(app text, keys text[]) RETURNS void
    LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    k text;
BEGIN
    IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
        RAISE EXCEPTION 'stream locks must be taken before the transaction writes'
            USING ERRCODE = 'PL001';
    END IF;
    FOR k IN SELECT DISTINCT u FROM unnest(keys) AS u ORDER BY u LOOP
        PERFORM pg_advisory_xact_lock(hashtextextended(app || '/' || k, 0));
    END LOOP;
END
$$;
