-- Durable timeouts (PostgreSQL): brings a table made by an earlier schema-postgresql.sql up to the current
-- one. Run it once, or add it to a migration; it is safe to run again.
ALTER TABLE wheel_timer_timeouts ADD COLUMN IF NOT EXISTS due_at BIGINT;
UPDATE wheel_timer_timeouts SET due_at = deadline WHERE due_at IS NULL AND failed_at IS NULL;
DROP INDEX IF EXISTS wheel_timer_timeouts_deadline_idx;
-- The index by due time only of the rows that have one, so that statements by key take the primary
-- key on a table without statistics. Rebuilt at each run of this script (a table of millions of rows
-- takes a while: run it when the application is idle, or create the new index CONCURRENTLY by hand).
DROP INDEX IF EXISTS wheel_timer_timeouts_due_idx;
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_due_idx ON wheel_timer_timeouts (task, due_at)
    WHERE due_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_holder_idx ON wheel_timer_timeouts (holder);
-- Data and trace context with each timeout, and given-up timeouts by task, latest first.
ALTER TABLE wheel_timer_timeouts ADD COLUMN IF NOT EXISTS data TEXT;
ALTER TABLE wheel_timer_timeouts ADD COLUMN IF NOT EXISTS trace_context VARCHAR(512);
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_failed_idx ON wheel_timer_timeouts (task, failed_at)
    WHERE failed_at IS NOT NULL;
-- The instances table says whether each instance keeps a life lock (false behind a transaction pooler).
ALTER TABLE wheel_timer_timeouts_instances ADD COLUMN IF NOT EXISTS life_lock BOOLEAN DEFAULT TRUE NOT NULL;
