-- Durable timeouts (H2). Deadlines and leases are UTC instants in epoch milliseconds.
-- One row per pending timeout of a task and key; a row with failed_at set was given up and is kept
-- with its last error until an operator deletes it or the key is scheduled again.
CREATE TABLE IF NOT EXISTS wheel_timer_timeouts (
    task VARCHAR(200) NOT NULL,
    timeout_key VARCHAR(200) NOT NULL,
    deadline BIGINT NOT NULL,
    holder VARCHAR(200),
    version BIGINT NOT NULL,
    attempts INT DEFAULT 0 NOT NULL,
    last_error VARCHAR(4000),
    failed_at BIGINT,
    PRIMARY KEY (task, timeout_key)
);

CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_deadline_idx ON wheel_timer_timeouts (deadline);

-- One row per live instance: its lease on the timeouts it holds runs until lease_until.
CREATE TABLE IF NOT EXISTS wheel_timer_timeouts_instances (
    instance_id VARCHAR(200) NOT NULL,
    lease_until BIGINT NOT NULL,
    PRIMARY KEY (instance_id)
);
