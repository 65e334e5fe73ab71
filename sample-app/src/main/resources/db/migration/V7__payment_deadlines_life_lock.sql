-- The durable timeouts' instances table as this version of wheel-timer-jdbc reads it (what the
-- library's upgrade scripts add): whether each instance keeps a life lock, false behind a
-- transaction-pooling proxy such as PgBouncer in transaction mode.
ALTER TABLE wheel_timer_timeouts_instances ADD COLUMN IF NOT EXISTS life_lock BOOLEAN DEFAULT TRUE NOT NULL;
