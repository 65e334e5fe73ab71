package io.wheeltimer.jdbc;

import io.wheeltimer.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The {@link DurableTimer} on a JDBC {@link DataSource}: one row per pending timeout, held by one
 * instance at a time under a lease, and fired from that instance's wheel.
 *
 * <p>Without Spring Boot:
 *
 * <pre>{@code
 * JdbcDurableTimer durable = JdbcDurableTimer.builder(dataSource, transactionManager, wheelTimer)
 *         .handler("order-payment", timeout -> orders.cancelIfUnpaid(timeout.key()))
 *         .build();
 * durable.start();
 * ...
 * durable.stop(); // hands what it holds over to the other instances
 * }</pre>
 */
public final class JdbcDurableTimer implements DurableTimer, AutoCloseable {

    // SKELETON: the implementation lands with the durable-timeouts work.

    private JdbcDurableTimer(Builder builder) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /**
     * A builder of a durable timer that keeps its rows in {@code dataSource}, runs its transactions
     * with {@code transactionManager} (which must manage that same {@code DataSource}) and fires its
     * timeouts on {@code timer}.
     */
    public static Builder builder(DataSource dataSource, PlatformTransactionManager transactionManager, Timer timer) {
        return new Builder(dataSource, transactionManager, timer);
    }

    /** Starts polling (claiming due timeouts, renewing this instance's lease) and arms what it holds. */
    public void start() {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /**
     * Stops polling and firing, and releases every timeout this instance holds so that the other
     * instances take them on their next poll. Idempotent.
     */
    public void stop() {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    public boolean isRunning() {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** Who this instance is in the table's holder column. */
    public String instanceId() {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** The timeouts this instance holds now. */
    public int held() {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** The timeouts given up after too many failed runs, still in the table (a query). */
    public long failed() {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** The task names this instance has handlers for. */
    public Set<String> tasks() {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** When the last poll succeeded, if one did. */
    public Optional<Instant> lastSuccessfulPoll() {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /** How many polls in a row failed (0 after a successful one). */
    public int failedPollsInARow() {
        throw new UnsupportedOperationException("not implemented yet");
    }

    @Override
    public DurableTimeout schedule(String task, String key, Duration delay) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    @Override
    public DurableTimeout schedule(String task, String key, Instant deadline) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    @Override
    public boolean cancel(String task, String key) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    @Override
    public Optional<DurableTimeout> find(String task, String key) {
        throw new UnsupportedOperationException("not implemented yet");
    }

    /**
     * Settings of a {@link JdbcDurableTimer}; the defaults are those of the {@code wheel-timer.durable.*}
     * properties. {@link #build()} checks them together and names the setting, the value and what is
     * allowed.
     */
    public static final class Builder {

        private final DataSource dataSource;
        private final PlatformTransactionManager transactionManager;
        private final Timer timer;

        private Builder(DataSource dataSource, PlatformTransactionManager transactionManager, Timer timer) {
            this.dataSource = dataSource;
            this.transactionManager = transactionManager;
            this.timer = timer;
        }

        /** The table; default {@code wheel_timer_timeouts}. */
        public Builder tableName(String tableName) {
            throw new UnsupportedOperationException("not implemented yet");
        }

        /** How often this instance claims due timeouts and renews its lease; default 1 s. */
        public Builder pollInterval(Duration pollInterval) {
            throw new UnsupportedOperationException("not implemented yet");
        }

        /** How far ahead of their deadline unheld timeouts are claimed; default 10 s, at least the poll interval. */
        public Builder lookahead(Duration lookahead) {
            throw new UnsupportedOperationException("not implemented yet");
        }

        /** How long a claim holds without renewal; default 30 s, more than twice the poll interval. */
        public Builder lease(Duration lease) {
            throw new UnsupportedOperationException("not implemented yet");
        }

        /** Most timeouts claimed in one poll; default 1000. */
        public Builder batchSize(int batchSize) {
            throw new UnsupportedOperationException("not implemented yet");
        }

        /** Wait before a failed run is retried; default 10 s. */
        public Builder retryDelay(Duration retryDelay) {
            throw new UnsupportedOperationException("not implemented yet");
        }

        /** Runs that throw before a timeout is given up; default 10. */
        public Builder maxAttempts(int maxAttempts) {
            throw new UnsupportedOperationException("not implemented yet");
        }

        /** Who this instance is; default the host name and a random suffix. */
        public Builder instanceId(String instanceId) {
            throw new UnsupportedOperationException("not implemented yet");
        }

        /** Where handlers run (never the wheel's worker); default a {@code SimpleAsyncTaskExecutor} of its own. */
        public Builder executor(Executor executor) {
            throw new UnsupportedOperationException("not implemented yet");
        }

        /** The wall clock deadlines are read against; default the system UTC clock. */
        public Builder clock(Clock clock) {
            throw new UnsupportedOperationException("not implemented yet");
        }

        /** Handles the timeouts of {@code task}; one handler per task. */
        public Builder handler(String task, DurableTimeoutHandler handler) {
            throw new UnsupportedOperationException("not implemented yet");
        }

        /** Hears what the timer does (meters); default none. May be called more than once. */
        public Builder listener(DurableTimerListener listener) {
            throw new UnsupportedOperationException("not implemented yet");
        }

        public JdbcDurableTimer build() {
            return new JdbcDurableTimer(this);
        }
    }
}
