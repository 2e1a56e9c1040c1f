-- Trustworthy fan-out (issue 13): failing work ends with a reason instead of being handed to the loop
-- forever, flow control is one budget per push shared by every process, and push records carry their
-- error reasons.

-- A job's failed attempts (targeting raised an error); after a bounded number it ends as 'failed'.
ALTER TABLE push_jobs ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE push_jobs ADD COLUMN last_error text;
-- flow_control: the instant from which the push's next devices may leave, whichever process sends them.
ALTER TABLE push_jobs ADD COLUMN flow_next_at timestamptz;
-- 'failed' is a new terminal job state (beside 'done' and 'cancelled'); push_jobs.state is plain text.

-- How many times a batch was leased; a batch that keeps failing is given up with its reason.
ALTER TABLE push_batches ADD COLUMN attempts integer NOT NULL DEFAULT 0;

-- Per-reason error counts of a push record ({"BadDeviceToken": 3, ...}), projected from its batches.
ALTER TABLE notifications ADD COLUMN error_reasons jsonb NOT NULL DEFAULT '{}';
