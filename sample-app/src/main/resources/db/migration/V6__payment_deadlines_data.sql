-- The durable timeouts' table as this version of wheel-timer-jdbc reads it (what the library's
-- upgrade-h2.sql and upgrade-postgresql.sql add, in SQL both databases run): data is the text
-- scheduled with a timeout, trace_context what the timer's context captured at the schedule (H2
-- counts UTF-16 units: 1024 holds its 512 characters). Given-up timeouts are read by task, latest first.
ALTER TABLE wheel_timer_timeouts ADD COLUMN IF NOT EXISTS data TEXT;
ALTER TABLE wheel_timer_timeouts ADD COLUMN IF NOT EXISTS trace_context VARCHAR(1024);
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_failed_idx ON wheel_timer_timeouts (task, failed_at);
