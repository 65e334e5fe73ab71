-- The payment deadlines, as durable timeouts (wheel-timer-jdbc): task 'order-payment', key = the order
-- id. The same tables as the library's own scripts for H2 and PostgreSQL, which are identical; kept
-- here so that the sample's schema has one owner, Flyway (wheel-timer.durable.initialize-schema=never).
-- Deadlines and leases are UTC instants in epoch milliseconds.
CREATE TABLE IF NOT EXISTS wheel_timer_timeouts (
    task        VARCHAR(200)  NOT NULL,
    timeout_key VARCHAR(200)  NOT NULL,
    deadline    BIGINT        NOT NULL,
    holder      VARCHAR(200),
    version     BIGINT        NOT NULL,
    attempts    INT DEFAULT 0 NOT NULL,
    last_error  VARCHAR(4000),
    failed_at   BIGINT,
    PRIMARY KEY (task, timeout_key)
);

CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_deadline_idx ON wheel_timer_timeouts (deadline);

-- One row per live instance: its lease on the timeouts it holds runs until lease_until.
CREATE TABLE IF NOT EXISTS wheel_timer_timeouts_instances (
    instance_id VARCHAR(200) NOT NULL,
    lease_until BIGINT       NOT NULL,
    PRIMARY KEY (instance_id)
);

-- When an order was cancelled (NULL unless CANCELLED): how late a deadline was is cancelled_at - pay_by.
ALTER TABLE orders ADD COLUMN cancelled_at TIMESTAMP WITH TIME ZONE;
