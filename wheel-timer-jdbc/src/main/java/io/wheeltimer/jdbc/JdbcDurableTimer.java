package io.wheeltimer.jdbc;

import io.wheeltimer.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.unit.DataSize;

/**
 * The {@link DurableTimer} on a JDBC {@link DataSource}: one row per pending timeout, held by at
 * most one instance at a time under a lease, and fired from that instance's wheel.
 *
 * <p>The path of a timeout through the parts of this package:
 *
 * <pre>
 *  schedule(task, key, deadline)        Scheduling: checks, one upsert (held here only if due
 *    │                                  within the lookahead, else unheld)
 *    ▼                                  TimeoutTable: the one door to the SQL, per database
 *  after commit ──► ArmedTimeouts.arm ──► wheel       ArmedTimeouts: the cache of held rows
 *    ▲                                      │ due
 *    │ claim (due within lookahead)         ▼
 *  Poller: every pollInterval           Firing.dispatch ──► executor
 *    lease, claim, heal, housekeeping         │
 *                                             ▼
 *                 one transaction: delete the row (this version, this holder) + the handler
 *                   commit ──► done, once          fail ──► Retries: retry (new version) or give up
 * </pre>
 *
 * <p>The database is the truth and memory a cache that every poll can rebuild: an instance holds
 * only timeouts due within its lookahead, the {@link Poller} claims the rest as they come near
 * ({@code FOR UPDATE SKIP LOCKED}: two instances never both take a row) and takes back its own rows
 * that memory lost, and {@link ArmedTimeouts} keeps the invariant every path obeys: an armed entry
 * acts only while it is still the current entry for its row. {@link Firing} runs the handler, never
 * on the wheel's worker, in the transaction that deletes the row. Deadlines and leases are judged by
 * the database's clock ({@link TimeSource}).
 *
 * <p>Supports H2, PostgreSQL, MariaDB 10.6+ and MySQL 8.0+, the dialect chosen from the product
 * name the driver reports. The scripts {@code io/wheeltimer/jdbc/schema-<database>.sql} in this jar
 * ({@code h2}, {@code postgresql}, {@code mariadb}, {@code mysql}) create the tables
 * {@value #DEFAULT_TABLE_NAME} and {@code wheel_timer_timeouts_instances} (for another table name,
 * replace {@value #DEFAULT_TABLE_NAME} throughout), and {@code upgrade-<database>.sql} adds what an
 * older table lacks.
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

    /** The default table name, as it is written in the schema scripts. */
    public static final String DEFAULT_TABLE_NAME = "wheel_timer_timeouts";

    // The builder's defaults: the one place they are written (the Spring Boot properties take them).

    /** Default {@link Builder#pollInterval}: 1 s. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);

    /** Default {@link Builder#lookahead}: 10 s. */
    public static final Duration DEFAULT_LOOKAHEAD = Duration.ofSeconds(10);

    /** Default {@link Builder#lease}: 30 s. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

    /** Default {@link Builder#batchSize}: 1000. */
    public static final int DEFAULT_BATCH_SIZE = 1000;

    /** Default {@link Builder#retryDelay}: 10 s. */
    public static final Duration DEFAULT_RETRY_DELAY = Duration.ofSeconds(10);

    /** Default {@link Builder#retryMaxDelay}: 10 minutes. */
    public static final Duration DEFAULT_RETRY_MAX_DELAY = Duration.ofMinutes(10);

    /** Most threads of the default {@link Builder#executor}: 64. */
    public static final int DEFAULT_EXECUTOR_THREADS = 64;

    /** Default {@link Builder#maxAttempts}: 10. */
    public static final int DEFAULT_MAX_ATTEMPTS = 10;

    /** Default {@link Builder#maxDataSize}: 64 KB, counted in UTF-8 bytes of the stored text. */
    public static final DataSize DEFAULT_MAX_DATA_SIZE = DataSize.ofKilobytes(64);

    /** Longest wait in {@link #stop()} for the handlers running at that moment. */
    private static final Duration STOP_WAIT_FOR_HANDLERS = Duration.ofSeconds(10);

    private final TimerParts parts;
    private final TimerSettings settings;
    private final ArmedTimeouts armed;
    private volatile TableOverview overview;

    /** Polling and firing; written under this object's monitor. */
    private volatile boolean running;

    private JdbcDurableTimer(Builder builder, TimerSettings settings) {
        this.parts = new TimerParts(
                settings,
                builder.dataSource,
                builder.transactionManager,
                builder.timer,
                builder.handlers,
                builder.listeners,
                this::isRunning);
        this.settings = parts.settings;
        this.armed = parts.armed;
    }

    /**
     * {@code tableName} if {@link Builder#tableName} takes it: for a configuration layer that
     * creates the table before a timer exists.
     *
     * @throws InvalidSettingException if it is not a plain SQL identifier of at most 50 characters,
     *     or is a word that H2, PostgreSQL, MariaDB or MySQL reserves
     */
    public static String checkTableName(String tableName) {
        return Names.tableName(tableName);
    }

    /**
     * A builder of a durable timer that keeps its rows in {@code dataSource}, runs its transactions
     * with {@code transactionManager} (which must manage that same {@code DataSource}) and fires its
     * timeouts on {@code timer}.
     */
    public static Builder builder(DataSource dataSource, PlatformTransactionManager transactionManager, Timer timer) {
        return new Builder(
                Objects.requireNonNull(dataSource, "dataSource must not be null"),
                Objects.requireNonNull(transactionManager, "transactionManager must not be null"),
                Objects.requireNonNull(timer, "timer must not be null"));
    }

    /**
     * Starts polling (claiming due timeouts, renewing this instance's lease) and arms what it holds.
     * The first poll runs at once on the poll thread, and this method waits up to 5 s for it, so that
     * what is scheduled afterwards is held here from the start. A database that cannot be reached does
     * not fail the start: the poll is retried every poll interval. Does nothing if already running.
     *
     * @throws DurableTableException if the table is missing or lacks columns, naming them and the
     *     script that creates or upgrades it
     */
    public synchronized void start() {
        if (running) {
            return;
        }
        parts.checkTable();
        running = true;
        armed.waitForLease();
        parts.poller.start();
    }

    /**
     * Stops polling and firing, and releases every timeout this instance holds so that the other
     * instances take them on their next poll. Waits up to 10 s for the handlers running at that
     * moment. Idempotent.
     */
    public synchronized void stop() {
        if (!running) {
            return;
        }
        // In this order: no run starts any more; no poll can claim or arm after the next step;
        // nothing stays armed; the runs in progress end (their commits go through); then the rows
        // are released, so that a release never races a run of this instance.
        running = false;
        parts.poller.stop();
        armed.stop();
        parts.firing.awaitRuns(STOP_WAIT_FOR_HANDLERS);
        parts.handOver();
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    /** Whether {@link #start()} was called and {@link #stop()} not since. */
    public boolean isRunning() {
        return running;
    }

    /** Who this instance is in the table's holder column. */
    public String instanceId() {
        return settings.instanceId();
    }

    /** The table the timeouts are kept in. */
    public String tableName() {
        return settings.tableName();
    }

    /**
     * The timeouts this instance holds now: those due within its lookahead that it scheduled or
     * claimed and that no other instance has taken since (a poll after a lapsed lease rebuilds it).
     */
    public int held() {
        return armed.size();
    }

    /**
     * Reads for a page that shows the whole table (counts, upcoming deadlines, instances, one
     * timeout, keyset pages), each one statement bounded whatever the table's size.
     */
    public TableOverview overview() {
        TableOverview o = overview;
        if (o == null) {
            // Two threads may both build one: they are alike, and the table is found once in parts.
            o = new TableOverview(parts.table(), settings.clock());
            overview = o;
        }
        return o;
    }

    /** This instance's life lock; for tests. */
    LifeLock lifeLock() {
        return parts.lifeLock;
    }

    /** The timeouts this instance holds now, each as {@code task/key}; for tests. */
    Set<String> heldKeys() {
        return armed.keys();
    }

    /**
     * The timeouts given up after too many failed runs, still in the table (a query).
     *
     * @throws org.springframework.dao.DataAccessException if the database cannot be reached
     */
    public long failed() {
        return parts.table().countFailed();
    }

    /** The task names this instance has handlers for. */
    public Set<String> tasks() {
        return parts.context.handlers().keySet();
    }

    /** When the last successful poll ended, if one did. */
    public Optional<Instant> lastSuccessfulPoll() {
        return parts.poller.lastSuccessfulPoll();
    }

    /**
     * Whether the polls keep up: the last one succeeded within three poll intervals (at least 2 s)
     * and within half the lease. False before the first successful poll, while the database cannot
     * be reached, and while a poll hangs (waiting for a connection, say).
     */
    public boolean isPollingOnTime() {
        return parts.poller.isOnTime();
    }

    /**
     * The database's clock less this instance's, as the last lease renewal measured it; empty when
     * this instance's clock judges ({@link TimeSource#INSTANCE}) or before the first renewal.
     */
    public Optional<Duration> databaseClockOffset() {
        DatabaseClock databaseClock = parts.context.databaseClock();
        return databaseClock != null && databaseClock.isMeasured()
                ? Optional.of(databaseClock.offset())
                : Optional.empty();
    }

    /** How many polls in a row failed (0 after a successful one). */
    public int failedPollsInARow() {
        return parts.poller.failedPollsInARow();
    }

    @Override
    public DurableTimeout schedule(String task, String key, Duration delay) {
        return parts.scheduling.schedule(task, key, delay, null);
    }

    @Override
    public DurableTimeout schedule(String task, String key, Instant deadline) {
        return parts.scheduling.schedule(task, key, deadline, null);
    }

    @Override
    public boolean cancel(String task, String key) {
        return parts.scheduling.cancel(task, key);
    }

    @Override
    public Optional<DurableTimeout> find(String task, String key) {
        return parts.scheduling.find(task, key);
    }

    @Override
    public DurableTimeout schedule(String task, String key, Duration delay, Object data) {
        return parts.scheduling.schedule(task, key, delay, data);
    }

    @Override
    public DurableTimeout schedule(String task, String key, Instant deadline, Object data) {
        return parts.scheduling.schedule(task, key, deadline, data);
    }

    @Override
    public int scheduleAll(Collection<DurableTimeout> timeouts) {
        return parts.bulk.scheduleAll(timeouts);
    }

    @Override
    public int cancelAll(String task, Collection<String> keys) {
        return parts.bulk.cancelAll(task, keys);
    }

    @Override
    public List<DurableTimeout> pending(String task, int limit) {
        return parts.mending.pending(task, limit);
    }

    @Override
    public List<FailedTimeout> failed(String task, int limit) {
        return parts.mending.failed(task, limit);
    }

    /**
     * The given-up timeout of {@code task} for {@code key}, if any (a query of the whole table).
     *
     * @throws org.springframework.dao.DataAccessException if the database cannot be reached
     */
    public Optional<FailedTimeout> findFailed(String task, String key) {
        return parts.mending.findFailed(task, key);
    }

    @Override
    public boolean retry(String task, String key) {
        return parts.mending.retry(task, key);
    }

    @Override
    public boolean discard(String task, String key) {
        return parts.mending.discard(task, key);
    }

    /**
     * The tasks that have pending timeouts in the table but no handler on this instance, each with
     * how many (a query): a task removed from the code, or one another instance handles.
     *
     * @throws org.springframework.dao.DataAccessException if the database cannot be reached
     */
    public Map<String, Long> unhandledTasks() {
        return parts.table().countUnhandled();
    }

    /**
     * How many pending timeouts the table holds of tasks no handler on this instance knows, as the
     * count this instance makes hourly (off its polls) last found them: no query. Empty before the
     * first count, which comes about one poll interval after the start.
     */
    public OptionalLong unhandledCountedHourly() {
        return parts.poller.unhandledRows();
    }

    @Override
    public String toString() {
        return "JdbcDurableTimer[" + settings.instanceId() + ", table " + settings.tableName() + ", tasks "
                + parts.context.handlers().keySet() + ", held " + held() + "]";
    }

    /**
     * Settings of a {@link JdbcDurableTimer}; the defaults are those of the {@code wheel-timer.durable.*}
     * properties. Each setter rejects a value that is wrong on its own; {@link #build()} checks them
     * together. A value a setting does not allow is an {@link InvalidSettingException} naming the
     * setting, the value and what is allowed; a null one a {@link NullPointerException}.
     */
    public static final class Builder {

        private final DataSource dataSource;
        private final PlatformTransactionManager transactionManager;
        private final Timer timer;
        private String tableName = DEFAULT_TABLE_NAME;
        private Duration pollInterval = DEFAULT_POLL_INTERVAL;
        private Duration lookahead = DEFAULT_LOOKAHEAD;
        private Duration lease = DEFAULT_LEASE;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private Duration retryDelay = DEFAULT_RETRY_DELAY;
        private Duration retryMaxDelay = DEFAULT_RETRY_MAX_DELAY;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private String instanceId;
        private Executor executor;
        private Clock clock = Clock.systemUTC();
        private TimeSource timeSource = TimeSource.DATABASE;
        private DataSize maxDataSize = DEFAULT_MAX_DATA_SIZE;
        private DurableDataCodec dataCodec;
        private DurableTimeoutContext context = DurableTimeoutContext.NONE;
        private final Map<String, DurableTimeoutHandler> handlers = new LinkedHashMap<>();
        private final List<DurableTimerListener> listeners = new ArrayList<>();

        private Builder(DataSource dataSource, PlatformTransactionManager transactionManager, Timer timer) {
            this.dataSource = dataSource;
            this.transactionManager = transactionManager;
            this.timer = timer;
        }

        /**
         * The table; default {@code wheel_timer_timeouts}. A plain SQL identifier of at most 50
         * characters, not a word that H2, PostgreSQL, MariaDB or MySQL reserves ({@code order},
         * {@code user}: the name is written into the SQL unquoted); the instances' leases are in the
         * table of that name with {@code _instances} appended.
         */
        public Builder tableName(String tableName) {
            this.tableName = Names.tableName(tableName);
            return this;
        }

        /** How often this instance claims due timeouts and renews its lease; default 1 s, at least 1 ms. */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = TimerSettings.atLeastOneMillisecond("pollInterval", pollInterval);
            return this;
        }

        /** How far ahead of their deadline unheld timeouts are claimed; default 10 s, at least the poll interval. */
        public Builder lookahead(Duration lookahead) {
            this.lookahead = TimerSettings.atLeastOneMillisecond("lookahead", lookahead);
            return this;
        }

        /** How long a claim holds without renewal; default 30 s, more than twice the poll interval. */
        public Builder lease(Duration lease) {
            this.lease = TimerSettings.atLeastOneMillisecond("lease", lease);
            return this;
        }

        /** Most timeouts claimed in one poll; default 1000, at least 1. */
        public Builder batchSize(int batchSize) {
            this.batchSize = TimerSettings.atLeastOne("batchSize", batchSize);
            return this;
        }

        /**
         * Wait before the first retry of a failed run; default 10 s, at least 1 ms. Each further retry
         * waits twice as long as the one before, at most {@link #retryMaxDelay}, each stretched or
         * shrunk by a random factor of up to 20%.
         */
        public Builder retryDelay(Duration retryDelay) {
            this.retryDelay = TimerSettings.atLeastOneMillisecond("retryDelay", retryDelay);
            return this;
        }

        /**
         * Longest wait between two retries of a failed run, before its random factor of up to 20%;
         * default 10 minutes, at least 1 ms, and never less than {@link #retryDelay} (a shorter one
         * counts as {@code retryDelay}). With the defaults, 10 attempts span over 30 minutes: a
         * downstream outage that long gives up nothing.
         */
        public Builder retryMaxDelay(Duration retryMaxDelay) {
            this.retryMaxDelay = TimerSettings.atLeastOneMillisecond("retryMaxDelay", retryMaxDelay);
            return this;
        }

        /** Runs that throw before a timeout is given up; default 10, at least 1. */
        public Builder maxAttempts(int maxAttempts) {
            this.maxAttempts = TimerSettings.atLeastOne("maxAttempts", maxAttempts);
            return this;
        }

        /**
         * Who this instance is, 1 to 200 characters; default the host name and a random suffix. Two
         * live instances must never share one.
         */
        public Builder instanceId(String instanceId) {
            this.instanceId = Names.instanceId(instanceId);
            return this;
        }

        /**
         * Where handlers run (never the wheel's worker); default a pool of its own of at most
         * {@value JdbcDurableTimer#DEFAULT_EXECUTOR_THREADS} threads (daemon threads, ended when idle for
         * a minute) whose queue holds one batch: a burst of timeouts due at once waits for a thread, and
         * what the full pool refuses is let go at the next poll for any instance to run, rather than a
         * thread started per timeout. An executor given here may refuse too, with the same effect.
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor must not be null");
            return this;
        }

        /**
         * This instance's clock; default the system UTC clock. With the default {@link TimeSource#DATABASE}
         * it is the clock whose offset to the database's is measured; with {@link TimeSource#INSTANCE}
         * deadlines and leases are read on it.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock must not be null");
            return this;
        }

        /**
         * Whose clock judges deadlines and leases: the database's (the default), so that instances
         * whose clocks disagree fire every timeout on time, or this instance's {@link #clock}, for
         * tests that drive time by hand.
         */
        public Builder timeSource(TimeSource timeSource) {
            this.timeSource = Objects.requireNonNull(timeSource, "timeSource must not be null");
            return this;
        }

        /**
         * Writes data other than a {@code String} as text, and reads it back; default none, and then
         * only {@code String} data is accepted.
         */
        public Builder dataCodec(DurableDataCodec dataCodec) {
            this.dataCodec = Objects.requireNonNull(dataCodec, "dataCodec must not be null");
            return this;
        }

        /**
         * The largest data stored with a timeout, counted in UTF-8 bytes of the stored text; default
         * 64 KB, at least 1 B, at most 16 MB less one byte.
         */
        public Builder maxDataSize(DataSize maxDataSize) {
            this.maxDataSize = TimerSettings.maxDataSize(maxDataSize);
            return this;
        }

        /**
         * Carries a context (a trace, say) from each {@code schedule} to the runs of its timeout;
         * default none.
         */
        public Builder context(DurableTimeoutContext context) {
            this.context = Objects.requireNonNull(context, "context must not be null");
            return this;
        }

        /** Handles the timeouts of {@code task}; one handler per task. */
        public Builder handler(String task, DurableTimeoutHandler handler) {
            Names.name("task", task);
            Objects.requireNonNull(handler, "handler must not be null");
            if (handlers.containsKey(task)) {
                throw new IllegalArgumentException(
                        "task \"" + task + "\" has a handler already; each task has one handler");
            }
            handlers.put(task, handler);
            return this;
        }

        /** Hears what the timer does (meters); default none. May be called more than once. */
        public Builder listener(DurableTimerListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
            return this;
        }

        /**
         * Checks the settings together and builds the timer, not started.
         *
         * @throws InvalidSettingException if {@code lookahead} is less than {@code pollInterval}, or
         *     {@code lease} not more than twice {@code pollInterval}
         * @throws IllegalArgumentException if the transaction manager manages another {@code DataSource}
         *     than the timer's (Spring's proxies of a {@code DataSource} are looked through)
         */
        public JdbcDurableTimer build() {
            Transactions.checkManages(transactionManager, dataSource);
            TimerSettings settings = new TimerSettings(
                    tableName,
                    pollInterval,
                    lookahead,
                    lease,
                    batchSize,
                    retryDelay,
                    retryMaxDelay,
                    maxAttempts,
                    instanceId != null ? instanceId : Names.defaultInstanceId(),
                    executor != null ? executor : TimerThreads.handlerPool(DEFAULT_EXECUTOR_THREADS, batchSize),
                    clock,
                    timeSource,
                    maxDataSize.toBytes(),
                    dataCodec,
                    context);
            return new JdbcDurableTimer(this, settings);
        }
    }
}
