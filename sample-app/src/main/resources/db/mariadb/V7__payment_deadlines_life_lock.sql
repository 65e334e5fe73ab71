-- MariaDB's counterpart of V7 of db/migration (the same statement): whether each instance keeps a
-- life lock, false behind a transaction-pooling proxy (as upgrade-mariadb.sql adds it).
ALTER TABLE wheel_timer_timeouts_instances ADD COLUMN IF NOT EXISTS life_lock BOOLEAN DEFAULT TRUE NOT NULL;
