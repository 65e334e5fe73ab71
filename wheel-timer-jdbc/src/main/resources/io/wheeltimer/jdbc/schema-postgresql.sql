-- Durable timeouts (PostgreSQL). Deadlines and leases are UTC instants in epoch milliseconds.
-- One row per timeout of a task and key: pending, or given up (failed_at set), kept with its last
-- error until an operator retries or discards it, or the key is scheduled again.
-- deadline: the deadline that was scheduled, kept on retries. due_at: when it runs next (the
-- deadline, or the retry after a failed run); NULL once given up. holder: the instance that holds
-- it (it is due within that instance's lookahead), or NULL. version: grows at every schedule and
-- retry, so that an instance acting on an older one changes nothing. data: the text scheduled with
-- it (at most the timer's max data size, 64 KB of UTF-8 by default), or NULL. trace_context: what the
-- timer's context captured when it was scheduled (a W3C traceparent, say), handed to every run.
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
    data TEXT,
    trace_context VARCHAR(512),
    PRIMARY KEY (task, timeout_key)
);

-- The claim reads the rows of the tasks an instance handles that are due soon; given-up and
-- far-future rows, and rows of tasks no instance handles, stay out of its way. Partial: only a
-- statement that asks for rows with a due time can use it, so the statements that reach one row by
-- its key (schedule, fire, cancel) take the primary key even before the table has statistics.
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_due_idx ON wheel_timer_timeouts (task, due_at)
    WHERE due_at IS NOT NULL;
-- Given-up timeouts of a task, latest first (failed and the operator's paged reads). Partial: pending
-- rows, nearly all of them, are not in it and cost it nothing.
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_failed_idx ON wheel_timer_timeouts (task, failed_at)
    WHERE failed_at IS NOT NULL;
-- The release at a graceful stop reads the rows one instance holds.
CREATE INDEX IF NOT EXISTS wheel_timer_timeouts_holder_idx ON wheel_timer_timeouts (holder);

-- One row per live instance: its lease on the timeouts it holds runs until lease_until.
-- life_lock: whether the instance keeps a life lock (a session lock the others look at to see at once
-- that it died); false behind a transaction-pooling proxy, where no session lock can be kept: its
-- lease alone then tells whether it lives, and no instance ends that lease by its lock.
CREATE TABLE IF NOT EXISTS wheel_timer_timeouts_instances (
    instance_id VARCHAR(200) NOT NULL,
    lease_until BIGINT NOT NULL,
    life_lock BOOLEAN DEFAULT TRUE NOT NULL,
    PRIMARY KEY (instance_id)
);
