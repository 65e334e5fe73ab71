-- Durable timeouts (MySQL, and MariaDB through MySQL Connector/J): brings a table made by an earlier
-- schema-mysql.sql up to the current one: it adds what a table of an earlier shape lacks (due_at;
-- data and trace_context; the index of given-up timeouts; whether each instance keeps a life lock).
-- Run it once, or add it to a migration; it is safe to run again.
-- MySQL has no ADD COLUMN IF NOT EXISTS nor CREATE INDEX IF NOT EXISTS: each change is prepared
-- only when information_schema says it is missing (DO 0 does nothing).
SET @wheel_timer_change = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE wheel_timer_timeouts ADD COLUMN due_at BIGINT', 'DO 0')
    FROM information_schema.columns
    WHERE table_schema = DATABASE() AND table_name = 'wheel_timer_timeouts' AND column_name = 'due_at');
PREPARE wheel_timer_change FROM @wheel_timer_change;
EXECUTE wheel_timer_change;
DEALLOCATE PREPARE wheel_timer_change;

UPDATE wheel_timer_timeouts SET due_at = deadline WHERE due_at IS NULL AND failed_at IS NULL;

SET @wheel_timer_change = (SELECT IF(COUNT(*) = 0,
        'CREATE INDEX wheel_timer_timeouts_due_idx ON wheel_timer_timeouts (task, due_at)', 'DO 0')
    FROM information_schema.statistics
    WHERE table_schema = DATABASE() AND table_name = 'wheel_timer_timeouts'
        AND index_name = 'wheel_timer_timeouts_due_idx');
PREPARE wheel_timer_change FROM @wheel_timer_change;
EXECUTE wheel_timer_change;
DEALLOCATE PREPARE wheel_timer_change;

SET @wheel_timer_change = (SELECT IF(COUNT(*) = 0,
        'CREATE INDEX wheel_timer_timeouts_holder_idx ON wheel_timer_timeouts (holder)', 'DO 0')
    FROM information_schema.statistics
    WHERE table_schema = DATABASE() AND table_name = 'wheel_timer_timeouts'
        AND index_name = 'wheel_timer_timeouts_holder_idx');
PREPARE wheel_timer_change FROM @wheel_timer_change;
EXECUTE wheel_timer_change;
DEALLOCATE PREPARE wheel_timer_change;

SET @wheel_timer_change = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE wheel_timer_timeouts ADD COLUMN data MEDIUMTEXT', 'DO 0')
    FROM information_schema.columns
    WHERE table_schema = DATABASE() AND table_name = 'wheel_timer_timeouts' AND column_name = 'data');
PREPARE wheel_timer_change FROM @wheel_timer_change;
EXECUTE wheel_timer_change;
DEALLOCATE PREPARE wheel_timer_change;

SET @wheel_timer_change = (SELECT IF(COUNT(*) = 0, 'ALTER TABLE wheel_timer_timeouts ADD COLUMN trace_context VARCHAR(512)', 'DO 0')
    FROM information_schema.columns
    WHERE table_schema = DATABASE() AND table_name = 'wheel_timer_timeouts' AND column_name = 'trace_context');
PREPARE wheel_timer_change FROM @wheel_timer_change;
EXECUTE wheel_timer_change;
DEALLOCATE PREPARE wheel_timer_change;

SET @wheel_timer_change = (SELECT IF(COUNT(*) = 0,
        'CREATE INDEX wheel_timer_timeouts_failed_idx ON wheel_timer_timeouts (task, failed_at)', 'DO 0')
    FROM information_schema.statistics
    WHERE table_schema = DATABASE() AND table_name = 'wheel_timer_timeouts'
        AND index_name = 'wheel_timer_timeouts_failed_idx');
PREPARE wheel_timer_change FROM @wheel_timer_change;
EXECUTE wheel_timer_change;
DEALLOCATE PREPARE wheel_timer_change;

-- The instances table says whether each instance keeps a life lock (false behind a transaction pooler).
SET @wheel_timer_change = (SELECT IF(COUNT(*) = 0,
        'ALTER TABLE wheel_timer_timeouts_instances ADD COLUMN life_lock BOOLEAN DEFAULT TRUE NOT NULL', 'DO 0')
    FROM information_schema.columns
    WHERE table_schema = DATABASE() AND table_name = 'wheel_timer_timeouts_instances'
        AND column_name = 'life_lock');
PREPARE wheel_timer_change FROM @wheel_timer_change;
EXECUTE wheel_timer_change;
DEALLOCATE PREPARE wheel_timer_change;
