-- The durable timeouts' table as this version of wheel-timer-jdbc reads it: the library's
-- upgrade-h2.sql and upgrade-postgresql.sql, which are identical. due_at is when a timeout runs next
-- (its deadline, or the retry after a failed run; the deadline stays as scheduled); the claim reads
-- by (task, due_at), the release at a graceful stop by holder.
ALTER TABLE wheel_timer_timeouts ADD COLUMN IF NOT EXISTS due_at BIGINT;
UPDATE wheel_timer_timeouts SET due_at = deadline WHERE due_at IS NULL AND failed_at IS NULL;
DROP INDEX IF EXISTS wheel_timer_timeouts_deadline_idx;
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_due_idx ON wheel_timer_timeouts (task, due_at);
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_holder_idx ON wheel_timer_timeouts (holder);
