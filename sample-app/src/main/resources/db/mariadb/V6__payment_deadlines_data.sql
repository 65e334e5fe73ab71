-- MariaDB's counterpart of V6 of db/migration: each payment deadline's data and trace context, and
-- the index that reads given-up timeouts by task, latest first (as upgrade-mariadb.sql adds them).
-- data: text of up to 64 KB of UTF-8, more than TEXT's 65,535 bytes, so MEDIUMTEXT. Both take the
-- table's character set and collation (utf8mb4, utf8mb4_nopad_bin), as schema-mariadb.sql's columns do.
ALTER TABLE wheel_timer_timeouts ADD COLUMN data MEDIUMTEXT NULL, ADD COLUMN trace_context VARCHAR(512) NULL;
CREATE INDEX wheel_timer_timeouts_failed_idx ON wheel_timer_timeouts (task, failed_at);
