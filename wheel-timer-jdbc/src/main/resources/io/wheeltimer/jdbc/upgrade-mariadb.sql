-- Durable timeouts (MariaDB): brings a table made by an earlier schema-mariadb.sql up to the current
-- one. So far that script has made one shape, the current one, and on a table it made this changes
-- nothing; it adds what a table of the shape before due_at lacks. Run it once, or add it to a
-- migration; it is safe to run again.
ALTER TABLE wheel_timer_timeouts ADD COLUMN IF NOT EXISTS due_at BIGINT;
UPDATE wheel_timer_timeouts SET due_at = deadline WHERE due_at IS NULL AND failed_at IS NULL;
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_due_idx ON wheel_timer_timeouts (task, due_at);
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_holder_idx ON wheel_timer_timeouts (holder);
