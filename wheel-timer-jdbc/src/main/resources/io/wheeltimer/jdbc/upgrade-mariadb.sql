-- Durable timeouts (MariaDB): brings a table made by an earlier schema-mariadb.sql up to the current
-- one: it adds what a table of an earlier shape lacks (due_at; data and trace_context; the index of
-- given-up timeouts; whether each instance keeps a life lock). Run it once, or add it to a migration; it is safe to run again.
ALTER TABLE wheel_timer_timeouts ADD COLUMN IF NOT EXISTS due_at BIGINT;
UPDATE wheel_timer_timeouts SET due_at = deadline WHERE due_at IS NULL AND failed_at IS NULL;
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_due_idx ON wheel_timer_timeouts (task, due_at);
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_holder_idx ON wheel_timer_timeouts (holder);
ALTER TABLE wheel_timer_timeouts ADD COLUMN IF NOT EXISTS data MEDIUMTEXT;
ALTER TABLE wheel_timer_timeouts ADD COLUMN IF NOT EXISTS trace_context VARCHAR(512);
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_failed_idx ON wheel_timer_timeouts (task, failed_at);
-- The instances table says whether each instance keeps a life lock (false behind a transaction pooler).
ALTER TABLE wheel_timer_timeouts_instances ADD COLUMN IF NOT EXISTS life_lock BOOLEAN DEFAULT TRUE NOT NULL;
