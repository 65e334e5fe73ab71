package io.wheeltimer.benchmarks.experiments;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.TaskInstanceId;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The durable schedulers compared, behind one small interface, each on the same kind of database
 * ({@link DurableDatabase}), the same HikariCP pool and the same Spring transaction manager, with one task ({@value #TASK}) whose handler
 * only records that it ran.
 *
 * <ul>
 *   <li>{@link #DURABLE}: {@link JdbcDurableTimer} with its defaults (poll interval 1 s, lookahead 10 s,
 *       batch 1,000) on a hierarchical {@link HashedWheelTimer} with a 10 ms tick; handlers on a fixed pool
 *       of {@value #THREADS} threads, as many as db-scheduler's default;
 *   <li>{@link #DB_SCHEDULER}: db-scheduler 16.7.1 with its defaults ({@value #THREADS} threads, polling
 *       every 10 s, the {@code fetch-and-lock-on-execute} strategy);
 *   <li>{@link #DB_SCHEDULER_TUNED}: db-scheduler tuned for low latency as its README advises: polling
 *       every 100 ms, the {@code lock-and-fetch} strategy ({@code select for update skip locked}) with the
 *       fractions it gives for high throughput (1.0, 4.0), and immediate execution of executions scheduled
 *       to now or earlier; {@value #THREADS} threads.
 * </ul>
 *
 * <p>On MariaDB db-scheduler detects the database and uses its MariaDB settings, which offer no
 * {@code lock-and-fetch} (they tell it that {@code select for update skip locked} is not there), so the
 * tuned configuration keeps {@code fetch-and-lock-on-execute} (polling every 100 ms, immediate execution);
 * and both store their timestamps in UTC ({@code alwaysPersistTimestampInUTC()}), as it advises for a
 * database whose timestamp columns keep no zone. The durable timer's pool on MariaDB hands out
 * connections with auto-commit off, as its guide advises there ({@link #poolAutoCommit}).
 *
 * <p>db-scheduler runs its statements on a new connection of its {@code DataSource}; to take part in the
 * caller's transaction, its README says to give it Spring's {@link TransactionAwareDataSourceProxy}, as
 * here, and as its Spring Boot starter does. Called with no transaction around it, it is given the pool
 * itself, as its README's own examples do: each statement then commits on its own (auto-commit).
 */
public enum DurableContender {
    DURABLE("durable timeouts (10 ms tick)", Duration.ofSeconds(1)),
    DB_SCHEDULER("db-scheduler, defaults", Duration.ofSeconds(10)),
    DB_SCHEDULER_TUNED("db-scheduler, tuned", Duration.ofMillis(100));

    /** The one task every contender handles. */
    static final String TASK = "bench";

    /** Handler threads: db-scheduler's default, and the durable timer's pool. */
    public static final int THREADS = 10;

    /** What a handler does: record that the timeout of {@code key} due at {@code deadline} started now. */
    @FunctionalInterface
    interface Handler {
        void ran(String key, Instant deadline);
    }

    /** A running scheduler under test. */
    interface Durable {
        /** Schedules the task for {@code key} at {@code deadline}, in the caller's transaction. */
        void schedule(String key, Instant deadline);

        /** Cancels the pending one of {@code key}, in the caller's transaction. */
        void cancel(String key);

        /** Stops it (its threads end). */
        void stop();

        /** The timeouts it holds in memory, armed to fire; the durable timer's {@link JdbcDurableTimer#held()}. */
        default int held() {
            throw new UnsupportedOperationException("only the durable timer tells what it holds");
        }
    }

    private final String label;
    private final Duration pollInterval;

    DurableContender(String label, Duration pollInterval) {
        this.label = label;
        this.pollInterval = pollInterval;
    }

    public String label() {
        return label;
    }

    /** How often it looks in the database for due work. */
    public Duration pollInterval() {
        return pollInterval;
    }

    /**
     * Whether its pool on {@code database} hands out connections in auto-commit mode. On MariaDB the
     * durable timer's does not, as its guide advises there: its runs then switch nothing (MariaDB
     * Connector/J sends each switch as a statement of its own), two round trips fewer. db-scheduler's
     * keeps auto-commit on, which its statements outside a transaction need.
     */
    public boolean poolAutoCommit(DurableDatabase database) {
        return !(this == DURABLE && database == DurableDatabase.MARIADB);
    }

    /** The table its pending work is kept in. */
    String table() {
        return this == DURABLE ? "wheel_timer_timeouts" : "scheduled_tasks";
    }

    /**
     * Creates and starts it; returns once it can schedule (the durable timer has written its lease).
     * {@code callerTransactions}: whether its calls will be made inside the caller's transactions
     * (db-scheduler then gets Spring's proxy, to join them) or with none around them (the pool itself).
     */
    Durable start(
            DurableDatabase database,
            DataSource dataSource,
            PlatformTransactionManager transactions,
            Handler handler,
            boolean callerTransactions)
            throws InterruptedException {
        return this == DURABLE
                ? durable(dataSource, transactions, handler)
                : dbScheduler(
                        callerTransactions ? new TransactionAwareDataSourceProxy(dataSource) : dataSource,
                        handler,
                        this == DB_SCHEDULER_TUNED,
                        database);
    }

    private static Durable durable(DataSource dataSource, PlatformTransactionManager transactions, Handler handler)
            throws InterruptedException {
        HashedWheelTimer wheel = HashedWheelTimer.builder()
                .name("durable-bench")
                .tickDuration(Duration.ofMillis(10))
                .leakDetection(false)
                .build();
        ExecutorService handlers = Executors.newFixedThreadPool(THREADS, daemon("durable-handler"));
        JdbcDurableTimer timer = JdbcDurableTimer.builder(dataSource, transactions, wheel)
                .executor(handlers)
                .handler(TASK, timeout -> handler.ran(timeout.key(), timeout.deadline()))
                .build();
        timer.start();
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (timer.lastSuccessfulPoll().isEmpty()) { // until then, it would leave new rows to a poll
            if (System.nanoTime() - giveUp > 0) {
                throw new IllegalStateException("the durable timer did not poll within 60 s");
            }
            Thread.sleep(10);
        }
        return new Durable() {
            @Override
            public void schedule(String key, Instant deadline) {
                timer.schedule(TASK, key, deadline);
            }

            @Override
            public void cancel(String key) {
                if (!timer.cancel(TASK, key)) {
                    throw new IllegalStateException("nothing pending to cancel for " + key);
                }
            }

            @Override
            public void stop() {
                timer.stop();
                handlers.shutdown();
                wheel.stop();
            }

            @Override
            public int held() {
                return timer.held();
            }
        };
    }

    private static Durable dbScheduler(
            DataSource dataSource, Handler handler, boolean tuned, DurableDatabase database) {
        OneTimeTask<Void> task = Tasks.oneTime(TASK)
                .execute((instance, context) -> handler.ran(instance.getId(), context.getExecution().executionTime));
        var builder = Scheduler.create(dataSource, task).threads(THREADS);
        boolean mariaDb = database == DurableDatabase.MARIADB;
        if (mariaDb) {
            builder.alwaysPersistTimestampInUTC();
        }
        if (tuned) {
            builder.pollingInterval(Duration.ofMillis(100)).enableImmediateExecution();
            if (!mariaDb) {
                builder.pollUsingLockAndFetch(1.0, 4.0);
            }
        }
        Scheduler scheduler = builder.build();
        scheduler.start();
        return new Durable() {
            @Override
            public void schedule(String key, Instant deadline) {
                scheduler.schedule(task.instance(key), deadline);
            }

            @Override
            public void cancel(String key) {
                scheduler.cancel(TaskInstanceId.of(TASK, key));
            }

            @Override
            public void stop() {
                scheduler.stop();
            }
        };
    }

    static java.util.concurrent.ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
