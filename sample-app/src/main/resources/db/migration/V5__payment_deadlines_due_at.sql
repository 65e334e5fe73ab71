-- The durable timeouts' table as this version of wheel-timer-jdbc reads it: the library's
-- upgrade-h2.sql (upgrade-postgresql.sql is the same without the wider columns). due_at is when a timeout runs next
-- (its deadline, or the retry after a failed run; the deadline stays as scheduled); the claim reads
-- by (task, due_at), the release at a graceful stop by holder.
ALTER TABLE wheel_timer_timeouts ADD COLUMN IF NOT EXISTS due_at BIGINT;
-- H2 counts a VARCHAR's length in UTF-16 units: 400 holds the 200 characters (code points) a task,
-- key or instance id may have (on PostgreSQL, which counts characters, the wider type costs nothing).
ALTER TABLE wheel_timer_timeouts ALTER COLUMN task SET DATA TYPE VARCHAR(400);
ALTER TABLE wheel_timer_timeouts ALTER COLUMN timeout_key SET DATA TYPE VARCHAR(400);
ALTER TABLE wheel_timer_timeouts ALTER COLUMN holder SET DATA TYPE VARCHAR(400);
ALTER TABLE wheel_timer_timeouts_instances ALTER COLUMN instance_id SET DATA TYPE VARCHAR(400);
UPDATE wheel_timer_timeouts SET due_at = deadline WHERE due_at IS NULL AND failed_at IS NULL;
DROP INDEX IF EXISTS wheel_timer_timeouts_deadline_idx;
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_due_idx ON wheel_timer_timeouts (task, due_at);
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_holder_idx ON wheel_timer_timeouts (holder);
