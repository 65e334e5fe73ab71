-- The payment deadlines, as durable timeouts (wheel-timer-jdbc): task 'order-payment', key = the order
-- id. The same tables as the library's own schema-mariadb.sql, column for column, index for index
-- (task and key compare exactly: utf8mb4_nopad_bin); kept here so that the sample's schema has one
-- owner, Flyway (wheel-timer.durable.initialize-schema=never). Deadlines and leases are UTC instants in
-- epoch milliseconds.
-- This is already the shape that H2 and PostgreSQL reach at their V5 (due_at, the indexes on
-- (task, due_at) and holder), so MariaDB's set has no V5.
CREATE TABLE IF NOT EXISTS wheel_timer_timeouts (
    task VARCHAR(200) NOT NULL,
    timeout_key VARCHAR(200) NOT NULL,
    deadline BIGINT NOT NULL,
    due_at BIGINT,
    holder VARCHAR(200),
    version BIGINT NOT NULL,
    attempts INT DEFAULT 0 NOT NULL,
    last_error VARCHAR(4000),
    failed_at BIGINT,
    PRIMARY KEY (task, timeout_key),
    INDEX wheel_timer_timeouts_due_idx (task, due_at),
    INDEX wheel_timer_timeouts_holder_idx (holder)
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;

-- One row per live instance: its lease on the timeouts it holds runs until lease_until.
CREATE TABLE IF NOT EXISTS wheel_timer_timeouts_instances (
    instance_id VARCHAR(200) NOT NULL,
    lease_until BIGINT NOT NULL,
    PRIMARY KEY (instance_id)
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin;

-- When an order was cancelled (NULL unless CANCELLED): how late a deadline was is cancelled_at - pay_by.
ALTER TABLE orders ADD COLUMN cancelled_at DATETIME(6) NULL;
