package io.wheeltimer.jdbc;

import io.wheeltimer.Timeout;
import io.wheeltimer.Timer;
import java.net.InetAddress;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The {@link DurableTimer} on a JDBC {@link DataSource}: one row per pending timeout, held by one
 * instance at a time under a lease, and fired from that instance's wheel.
 *
 * <p>A timeout scheduled here is held here from the start and armed on the wheel once its row is
 * committed, so it fires within about a tick of its deadline without any polling. Every poll
 * interval the instance renews its lease (one row per instance, whatever it holds) and claims the
 * unheld timeouts of its tasks due within the lookahead (those of instances that stopped or died),
 * locking them with {@code FOR UPDATE SKIP LOCKED} so that two instances never both take one. An
 * instance that is idle runs those two statements a poll. A firing runs the handler on the executor,
 * never on the wheel's worker, in a transaction that first deletes the row: the handler's writes
 * through the same {@code DataSource} commit with that deletion, once. A handler that throws rolls
 * both back and is retried after the retry delay, until it has thrown {@code maxAttempts} times;
 * then the row is kept with its error and the timeout is given up.
 *
 * <p>Supports H2 and PostgreSQL. The scripts {@code io/wheeltimer/jdbc/schema-h2.sql} and
 * {@code schema-postgresql.sql} in this jar create the tables: {@value #DEFAULT_TABLE_NAME} and, for the
 * instances' leases, {@code wheel_timer_timeouts_instances}; for another table name, replace
 * {@value #DEFAULT_TABLE_NAME} in the script throughout.
 *
 * <p>Deadlines and leases are read on this instance's {@link Clock}: a timeout fires when the clock of
 * the instance that holds it reaches the deadline, and a dead instance's lease is judged by the clocks
 * of the others, so clocks should agree to well within the lease.
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

    /** Longest task name, key and instance id, in characters (the width of their columns). */
    static final int MAX_NAME_LENGTH = 200;

    /** Width of the {@code last_error} column. */
    static final int MAX_ERROR_LENGTH = 4000;

    /** The default table name, as it is written in the schema scripts. */
    public static final String DEFAULT_TABLE_NAME = "wheel_timer_timeouts";

    /** Longest table name: PostgreSQL's 63-character identifiers, less the suffixes of the derived names. */
    static final int MAX_TABLE_NAME_LENGTH = 50;

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** At most one WARN line per this interval while the database cannot be reached. */
    private static final long WARN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** Longest wait in {@link #start()} for the first poll. */
    private static final Duration FIRST_POLL_WAIT = Duration.ofSeconds(5);

    /** Longest wait in {@link #stop()} for the handlers running at that moment. */
    private static final Duration STOP_WAIT_FOR_HANDLERS = Duration.ofSeconds(10);

    /** How often a poll also deletes the lease rows of instances that are long gone. */
    private static final Duration PURGE_INTERVAL = Duration.ofHours(1);

    private static final System.Logger log = System.getLogger(JdbcDurableTimer.class.getName());

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final Timer timer;
    private final String tableName;
    private final Duration pollInterval;
    private final long lookaheadMillis;
    private final long leaseMillis;
    private final int batchSize;
    private final Duration retryDelay;
    private final int maxAttempts;
    private final String instanceId;
    private final Executor executor;
    private final Clock clock;
    private final Map<String, DurableTimeoutHandler> handlers;
    private final DurableTimerListener listener;
    private final long pollsPerPurge;
    private final ThrottledWarning databaseTrouble = new ThrottledWarning(log, WARN_INTERVAL_NANOS, System::nanoTime);
    private final ThrottledWarning wheelRefusals = new ThrottledWarning(log, WARN_INTERVAL_NANOS, System::nanoTime);

    /** The timeouts this instance holds and has armed on the wheel. */
    private final ConcurrentMap<Id, Armed> armed = new ConcurrentHashMap<>();
    /** Held timeouts the wheel refused to arm; each poll tries them again. */
    private final Set<Armed> waitingForTheWheel = ConcurrentHashMap.newKeySet();

    private final Object tableLock = new Object();
    private volatile TimeoutTable table;

    private final Object firingsLock = new Object();
    /** Firings handed to the executor and not finished; guarded by {@link #firingsLock}. */
    private int firings;

    // Lifecycle, guarded by this: running = polling and firing; holding = this instance's lease row
    // is written, so what it schedules is held (and armed) here rather than left for a poll.
    private volatile boolean running;
    private volatile boolean holding;
    private ScheduledExecutorService poller;

    // Written by the poll thread only.
    private boolean housekeepingDone;
    private long polls;
    private volatile int failedPollsInARow;
    private volatile Instant lastSuccessfulPoll;

    private JdbcDurableTimer(Builder builder) {
        this.jdbc = new JdbcTemplate(builder.dataSource);
        this.transactions = new TransactionTemplate(builder.transactionManager);
        this.timer = builder.timer;
        this.tableName = builder.tableName;
        this.pollInterval = builder.pollInterval;
        this.lookaheadMillis = builder.lookahead.toMillis();
        this.leaseMillis = builder.lease.toMillis();
        this.batchSize = builder.batchSize;
        this.retryDelay = builder.retryDelay;
        this.maxAttempts = builder.maxAttempts;
        this.instanceId = builder.instanceId != null ? builder.instanceId : defaultInstanceId();
        this.executor =
                builder.executor != null ? builder.executor : new SimpleAsyncTaskExecutor("wheel-timer-durable-");
        this.clock = builder.clock;
        this.handlers = Map.copyOf(builder.handlers);
        this.listener = new Listeners(List.copyOf(builder.listeners));
        this.pollsPerPurge = Math.max(1, PURGE_INTERVAL.toNanos() / pollInterval.toNanos());
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
     */
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        housekeepingDone = false;
        poller = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "wheel-timer-durable-poll-" + instanceId);
            thread.setDaemon(true);
            return thread;
        });
        Future<?> firstPoll = poller.submit(this::poll);
        poller.scheduleWithFixedDelay(this::poll, pollInterval.toNanos(), pollInterval.toNanos(), TimeUnit.NANOSECONDS);
        try {
            firstPoll.get(FIRST_POLL_WAIT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // A poll reports its own failures; a slow one goes on in the background.
        }
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
        running = false;
        holding = false;
        poller.shutdown();
        try {
            if (!poller.awaitTermination(10, TimeUnit.SECONDS)) {
                poller.shutdownNow();
            }
        } catch (InterruptedException e) {
            poller.shutdownNow();
            Thread.currentThread().interrupt();
        }
        poller = null;
        holding = false;
        disarmAll();
        awaitFirings(STOP_WAIT_FOR_HANDLERS);
        try {
            // Deleting the lease row alone would let the others claim what this instance held; the
            // release also shows it in the table. A row a late handler still fires stays locked until
            // that handler's transaction ends, and the release waits for it.
            transactions.executeWithoutResult(status -> {
                TimeoutTable t = table();
                t.releaseAll(instanceId);
                t.deleteLease(instanceId);
            });
        } catch (RuntimeException e) {
            log.log(
                    System.Logger.Level.WARNING,
                    () -> "Durable timer " + instanceId + " could not release its timeouts in table " + tableName
                            + "; the other instances take them when its lease runs out, within "
                            + format(Duration.ofMillis(leaseMillis)),
                    e);
        }
        disarmAll();
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
        return instanceId;
    }

    /** The table the timeouts are kept in. */
    public String tableName() {
        return tableName;
    }

    /** The timeouts this instance holds now. */
    public int held() {
        return armed.size();
    }

    /** The timeouts this instance holds now, each as {@code task/key}; for tests. */
    Set<String> heldKeys() {
        return armed.keySet().stream().map(id -> id.task + "/" + id.key).collect(Collectors.toSet());
    }

    /**
     * The timeouts given up after too many failed runs, still in the table (a query).
     *
     * @throws org.springframework.dao.DataAccessException if the database cannot be reached
     */
    public long failed() {
        return table().countFailed();
    }

    /** The task names this instance has handlers for. */
    public Set<String> tasks() {
        return handlers.keySet();
    }

    /** When the last poll succeeded, if one did. */
    public Optional<Instant> lastSuccessfulPoll() {
        return Optional.ofNullable(lastSuccessfulPoll);
    }

    /** How many polls in a row failed (0 after a successful one). */
    public int failedPollsInARow() {
        return failedPollsInARow;
    }

    /**
     * {@inheritDoc}
     *
     * <p>The deadline is now plus {@code delay}, truncated to milliseconds; a delay of zero or less
     * makes it now.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code task} or {@code key} is blank or longer than 200
     *     characters, no handler handles {@code task}, or {@code delay} is too long to represent
     * @throws org.springframework.dao.DataAccessException if the database cannot be reached
     */
    @Override
    public DurableTimeout schedule(String task, String key, Duration delay) {
        checkArguments(task, key, delay, "delay");
        checkKnown(task);
        Instant now = clock.instant();
        Instant deadline;
        try {
            deadline = delay.isNegative() || delay.isZero() ? now : now.plus(delay);
            deadline.toEpochMilli();
        } catch (DateTimeException | ArithmeticException e) {
            throw new IllegalArgumentException("delay is " + delay + "; it must put the deadline within the range"
                    + " of epoch milliseconds (about 292 million years)");
        }
        return upsert(task, key, deadline.truncatedTo(ChronoUnit.MILLIS));
    }

    /**
     * {@inheritDoc}
     *
     * <p>The deadline is kept truncated to milliseconds, as given even when it has passed, so that the
     * lateness the listener hears is honest.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code task} or {@code key} is blank or longer than 200
     *     characters, no handler handles {@code task}, or {@code deadline} is beyond the range of
     *     epoch milliseconds
     * @throws org.springframework.dao.DataAccessException if the database cannot be reached
     */
    @Override
    public DurableTimeout schedule(String task, String key, Instant deadline) {
        checkArguments(task, key, deadline, "deadline");
        checkKnown(task);
        Instant truncated = deadline.truncatedTo(ChronoUnit.MILLIS);
        try {
            truncated.toEpochMilli();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("deadline is " + deadline + "; it must be within the range of epoch"
                    + " milliseconds (about 292 million years either side of 1970)");
        }
        return upsert(task, key, truncated);
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code task} or {@code key} is blank or longer than 200
     *     characters
     * @throws org.springframework.dao.DataAccessException if the database cannot be reached
     */
    @Override
    public boolean cancel(String task, String key) {
        checkArguments(task, key, "", "");
        Id id = new Id(task, key);
        return inTransaction(() -> {
            Optional<Long> version = table().deletePending(task, key);
            if (version.isEmpty()) {
                return false;
            }
            afterCommit(() -> {
                disarm(id, version.get());
                notifyListener(l -> l.cancelled(task));
            });
            return true;
        });
    }

    /**
     * {@inheritDoc}
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code task} or {@code key} is blank or longer than 200
     *     characters
     * @throws org.springframework.dao.DataAccessException if the database cannot be reached
     */
    @Override
    public Optional<DurableTimeout> find(String task, String key) {
        checkArguments(task, key, "", "");
        return table().pendingDeadline(task, key)
                .map(deadline -> new DurableTimeout(task, key, Instant.ofEpochMilli(deadline)));
    }

    @Override
    public String toString() {
        return "JdbcDurableTimer[" + instanceId + ", table " + tableName + ", tasks " + handlers.keySet() + ", held "
                + held() + "]";
    }

    // ---- scheduling ----

    private DurableTimeout upsert(String task, String key, Instant deadline) {
        DurableTimeout timeout = new DurableTimeout(task, key, deadline);
        long version = newVersion();
        long deadlineMillis = deadline.toEpochMilli();
        inTransaction(() -> {
            // Not yet holding (not started, or the first poll has not written the lease): leave the
            // row unheld, for the first poll that claims it, here or elsewhere.
            boolean hold = holding;
            table().upsert(task, key, deadlineMillis, hold ? instanceId : null, version);
            afterCommit(() -> {
                if (hold) {
                    arm(timeout, version, 0, deadlineMillis);
                }
                notifyListener(l -> l.scheduled(task));
            });
            return null;
        });
        return timeout;
    }

    /**
     * Runs {@code work} in a transaction: the caller's, when it has one on this {@code DataSource},
     * else one of its own committed before returning. Failing to begin or commit one is a
     * {@link org.springframework.dao.DataAccessException}, as the statements' own failures are.
     */
    private <T> T inTransaction(Supplier<T> work) {
        try {
            return transactions.execute(status -> work.get());
        } catch (CannotCreateTransactionException | TransactionSystemException e) {
            throw new DataAccessResourceFailureException(
                    "Durable timer " + instanceId + ": no transaction on table " + tableName + ": " + e.getMessage(),
                    e);
        }
    }

    /** Runs {@code action} after the current transaction commits; never if it rolls back. */
    private static void afterCommit(Runnable action) {
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    action.run();
                }
            });
        } else {
            // A transaction manager that never synchronizes: the statement is done; arm now.
            action.run();
        }
    }

    // ---- the wheel ----

    /** Arms {@code timeout} on the wheel to fire at {@code dueAt} (epoch ms), replacing any armed one. */
    private void arm(DurableTimeout timeout, long version, int attempts, long dueAt) {
        if (!holding) {
            return;
        }
        Id id = new Id(timeout.task(), timeout.key());
        Armed entry = new Armed(id, timeout, version, attempts, dueAt);
        Armed previous = armed.put(id, entry);
        if (previous != null) {
            previous.disarm();
        }
        armOnWheel(entry);
    }

    /**
     * Arms {@code entry} (held, in {@link #armed}) on the wheel. A wheel that refuses it (at its
     * maximum of pending timeouts, or stopping) leaves it held and waiting: every poll tries again,
     * so the timeout fires late rather than never.
     */
    private void armOnWheel(Armed entry) {
        long delay = Math.max(0, entry.dueAt - clock.millis());
        try {
            entry.wheel = timer.newTimeout(wheelTimeout -> dispatch(entry), delay, TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            waitingForTheWheel.add(entry);
            wheelRefusals.report(
                    () -> "Durable timer " + instanceId + " could not arm the timeout of task \"" + entry.id.task
                            + "\" for key \"" + entry.id.key + "\" on its wheel; it keeps holding it and tries"
                            + " again at every poll, every " + format(pollInterval),
                    e);
            return;
        }
        if (armed.get(entry.id) != entry) {
            entry.disarm(); // disarmed while being armed: whoever removed it may have missed the handle
        }
    }

    /** On the poll thread: arms again what the wheel refused, if it is still held as it was. */
    private void armWhatTheWheelRefused() {
        List<Armed> refused = new ArrayList<>(waitingForTheWheel);
        waitingForTheWheel.removeAll(refused);
        for (Armed entry : refused) {
            if (running && armed.get(entry.id) == entry) {
                armOnWheel(entry);
            }
        }
    }

    /** Disarms the armed timeout of {@code id} if it is that {@code version}. */
    private void disarm(Id id, long version) {
        Armed entry = armed.get(id);
        if (entry != null && entry.version == version && armed.remove(id, entry)) {
            entry.disarm();
        }
    }

    private void disarmAll() {
        waitingForTheWheel.clear();
        for (Armed entry : armed.values()) {
            if (armed.remove(entry.id, entry)) {
                entry.disarm();
            }
        }
    }

    /** On the wheel's thread: hand the firing to the executor, never run SQL here. */
    private void dispatch(Armed entry) {
        if (!running || armed.get(entry.id) != entry) {
            return;
        }
        synchronized (firingsLock) {
            firings++;
        }
        try {
            executor.execute(() -> {
                try {
                    fire(entry);
                } finally {
                    firingEnded();
                }
            });
        } catch (RejectedExecutionException e) {
            firingEnded();
            log.log(
                    System.Logger.Level.WARNING,
                    () -> "Durable timer " + instanceId + ": the executor refused the timeout of task \""
                            + entry.id.task + "\" for key \"" + entry.id.key + "\"; retried in " + format(retryDelay),
                    e);
            armAgainLater(entry);
        }
    }

    private void firingEnded() {
        synchronized (firingsLock) {
            if (--firings == 0) {
                firingsLock.notifyAll();
            }
        }
    }

    private void awaitFirings(Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        synchronized (firingsLock) {
            long left;
            while (firings > 0 && (left = end - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(firingsLock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    // ---- firing ----

    /** On the executor: delete the row and run the handler in one transaction. */
    private void fire(Armed entry) {
        if (!running || armed.get(entry.id) != entry) {
            return;
        }
        DurableTimeoutHandler handler = handlers.get(entry.id.task);
        DurableTimeout timeout = entry.timeout;
        Throwable[] thrown = new Throwable[1];
        Boolean ran;
        try {
            ran = transactions.execute(status -> {
                if (!table().deleteForFiring(entry.id.task, entry.id.key, entry.version, instanceId)) {
                    return false; // cancelled, rescheduled, or taken over by another instance meanwhile
                }
                Duration lateness = Duration.ofMillis(
                        Math.max(0, clock.millis() - timeout.deadline().toEpochMilli()));
                notifyListener(l -> l.started(timeout, lateness));
                try {
                    handler.handle(timeout);
                } catch (Throwable e) {
                    thrown[0] = e;
                    throw new HandlerFailed(e);
                }
                return true;
            });
        } catch (RuntimeException e) {
            if (thrown[0] != null) {
                handlerFailed(entry, thrown[0]);
            } else {
                reportDatabaseTrouble(
                        () -> "Durable timer " + instanceId + " could not fire the timeout of task \"" + entry.id.task
                                + "\" for key \"" + entry.id.key + "\"; retried in " + format(retryDelay),
                        e);
                armAgainLater(entry);
            }
            return;
        }
        if (Boolean.TRUE.equals(ran)) {
            armed.remove(entry.id, entry);
            notifyListener(l -> l.fired(entry.id.task));
        } else {
            reconcile(entry);
        }
    }

    /** The handler threw and its transaction rolled back: retry the timeout later, or give it up. */
    private void handlerFailed(Armed entry, Throwable error) {
        int attempts = entry.attempts + 1;
        String task = entry.id.task;
        String key = entry.id.key;
        String message = truncate(String.valueOf(error), MAX_ERROR_LENGTH);
        boolean updated;
        try {
            if (attempts >= maxAttempts) {
                long now = clock.millis();
                updated = inTransaction(
                        () -> table().giveUp(task, key, entry.version, instanceId, attempts, message, now));
                if (updated) {
                    armed.remove(entry.id, entry);
                    log.log(
                            System.Logger.Level.ERROR,
                            () -> "Durable timeout of task \"" + task + "\" for key \"" + key + "\" given up after "
                                    + attempts + " runs that threw; kept in table " + tableName
                                    + " with its last error: " + message,
                            error);
                    notifyListener(l -> l.failed(task, error));
                }
            } else {
                long newVersion = newVersion();
                long due = clock.millis() + retryDelay.toMillis();
                updated = inTransaction(
                        () -> table().retry(task, key, entry.version, instanceId, attempts, message, newVersion, due));
                if (updated) {
                    log.log(
                            System.Logger.Level.WARNING,
                            () -> "Durable timeout of task \"" + task + "\" for key \"" + key + "\" threw (run "
                                    + attempts + " of at most " + maxAttempts + "); retried in " + format(retryDelay),
                            error);
                    arm(new DurableTimeout(task, key, Instant.ofEpochMilli(due)), newVersion, attempts, due);
                    notifyListener(l -> l.retried(task, error));
                }
            }
        } catch (RuntimeException e) {
            // The run is not counted: the handler runs again, as after a crash.
            reportDatabaseTrouble(
                    () -> "Durable timer " + instanceId + " could not record the failure of the timeout of task \""
                            + task + "\" for key \"" + key + "\"; it runs again in " + format(retryDelay),
                    e);
            armAgainLater(entry);
            return;
        }
        if (!updated) {
            reconcile(entry); // cancelled or rescheduled while the handler ran
        }
    }

    /**
     * The row was not this armed version any more: arm what the table holds for this instance, if
     * anything (a reschedule whose arming lost a race), or forget it.
     */
    private void reconcile(Armed entry) {
        Optional<TimeoutTable.Row> row;
        try {
            row = table().pending(entry.id.task, entry.id.key);
        } catch (RuntimeException e) {
            reportDatabaseTrouble(
                    () -> "Durable timer " + instanceId + " could not read the timeout of task \"" + entry.id.task
                            + "\" for key \"" + entry.id.key + "\"; looked at again in " + format(retryDelay),
                    e);
            armAgainLater(entry);
            return;
        }
        if (row.isPresent() && instanceId.equals(row.get().holder())) {
            TimeoutTable.Row r = row.get();
            Armed current = armed.get(entry.id);
            if (current == null || current == entry || current.version != r.version()) {
                arm(
                        new DurableTimeout(r.task(), r.key(), Instant.ofEpochMilli(r.deadline())),
                        r.version(),
                        r.attempts(),
                        r.deadline());
            }
        } else if (armed.remove(entry.id, entry)) {
            entry.disarm();
        }
    }

    /** Arms {@code entry} again, the same version, after the retry delay: its run did not happen. */
    private void armAgainLater(Armed entry) {
        if (running && armed.get(entry.id) == entry) {
            arm(entry.timeout, entry.version, entry.attempts, clock.millis() + retryDelay.toMillis());
        }
    }

    // ---- polling ----

    /** On the poll thread: renew the lease, then claim what is due soon and unheld. */
    private void poll() {
        if (!running) {
            return;
        }
        try {
            TimeoutTable t = table();
            if (!housekeepingDone || ++polls % pollsPerPurge == 0) {
                long now = clock.millis();
                transactions.executeWithoutResult(status -> {
                    if (!housekeepingDone) {
                        // Rows an earlier life of this instance id held (a crash, then a restart with
                        // the same id before its lease ran out) would otherwise stay held by nobody.
                        t.releaseAll(instanceId);
                    }
                    t.deleteExpiredLeases(now - leaseMillis);
                });
                housekeepingDone = true;
            }
            long now = clock.millis();
            transactions.executeWithoutResult(status -> t.renewLease(instanceId, now + leaseMillis));
            if (!running) {
                return;
            }
            holding = true;
            armWhatTheWheelRefused();
            List<TimeoutTable.Row> claimed =
                    transactions.execute(status -> t.claim(instanceId, now + lookaheadMillis, now, batchSize));
            for (TimeoutTable.Row row : claimed) {
                arm(
                        new DurableTimeout(row.task(), row.key(), Instant.ofEpochMilli(row.deadline())),
                        row.version(),
                        row.attempts(),
                        row.deadline());
            }
            int failedBefore = failedPollsInARow;
            failedPollsInARow = 0;
            lastSuccessfulPoll = Instant.ofEpochMilli(now);
            if (failedBefore > 0) {
                log.log(
                        System.Logger.Level.INFO,
                        () -> "Durable timer " + instanceId + " polls table " + tableName + " again, after "
                                + failedBefore + " failed polls");
            }
        } catch (VirtualMachineError e) {
            failedPollsInARow++;
            throw e;
        } catch (RuntimeException | Error e) {
            // Anything else (a driver's assertion included) fails this poll only: an exception that
            // left this task would end the polling for good.
            int failed = ++failedPollsInARow;
            reportDatabaseTrouble(
                    () -> "Durable timer " + instanceId + " could not poll table " + tableName + " (" + failed
                            + " polls in a row failed); it tries again every " + format(pollInterval)
                            + " and keeps what it holds armed",
                    e);
        }
    }

    private void reportDatabaseTrouble(Supplier<String> message, Throwable e) {
        databaseTrouble.report(message, e);
    }

    private TimeoutTable table() {
        TimeoutTable t = table;
        if (t != null) {
            return t;
        }
        synchronized (tableLock) {
            if (table == null) {
                String product = jdbc.execute(
                        (ConnectionCallback<String>) c -> c.getMetaData().getDatabaseProductName());
                TimeoutTable.Dialect dialect = TimeoutTable.Dialect.of(String.valueOf(product))
                        .orElseThrow(() -> new IllegalStateException(
                                "Durable timeouts support H2 and PostgreSQL; the DataSource is " + product));
                table = new TimeoutTable(jdbc, dialect, tableName, handlers.keySet());
            }
            return table;
        }
    }

    // ---- arguments ----

    private static void checkArguments(String task, String key, Object other, String otherName) {
        Objects.requireNonNull(task, "task must not be null");
        Objects.requireNonNull(key, "key must not be null");
        Objects.requireNonNull(other, () -> otherName + " must not be null");
        checkName("task", task);
        checkName("key", key);
    }

    static void checkName(String what, String value) {
        if (value.isBlank() || value.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(what + " is \"" + truncate(value, 40) + "\" (" + value.length()
                    + " characters); it must be 1 to " + MAX_NAME_LENGTH + " characters, not all blank");
        }
    }

    private void checkKnown(String task) {
        if (!handlers.containsKey(task)) {
            throw new IllegalArgumentException("task \"" + task + "\" has no handler here; the known tasks are "
                    + handlers.keySet().stream().sorted().toList());
        }
    }

    private static String truncate(String value, int length) {
        return value.length() <= length ? value : value.substring(0, length - 3) + "...";
    }

    private static long newVersion() {
        return ThreadLocalRandom.current().nextLong();
    }

    private void notifyListener(Consumer<DurableTimerListener> call) {
        call.accept(listener);
    }

    private static String defaultInstanceId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception | LinkageError e) {
            host = "instance";
        }
        if (host.isBlank()) {
            host = "instance";
        }
        return truncate(host, MAX_NAME_LENGTH - 9) + "-"
                + String.format("%08x", ThreadLocalRandom.current().nextInt());
    }

    // ---- small types ----

    private record Id(String task, String key) {}

    /** A timeout armed on the wheel: one version of one row. */
    private static final class Armed {
        final Id id;
        final DurableTimeout timeout;
        final long version;
        final int attempts;
        /** When it is to fire, in epoch milliseconds: its deadline, or when a failed run is retried. */
        final long dueAt;

        volatile Timeout wheel;

        Armed(Id id, DurableTimeout timeout, long version, int attempts, long dueAt) {
            this.id = id;
            this.timeout = timeout;
            this.version = version;
            this.attempts = attempts;
            this.dueAt = dueAt;
        }

        void disarm() {
            Timeout w = wheel;
            if (w != null) {
                w.cancel();
            }
        }
    }

    /** Carries the handler's exception out of the transaction callback, so that it rolls back. */
    private static final class HandlerFailed extends RuntimeException {
        HandlerFailed(Throwable cause) {
            super(null, cause, false, false);
        }
    }

    /** Every listener, each one's failure logged and kept from the others and from the timer. */
    private record Listeners(List<DurableTimerListener> all) implements DurableTimerListener {

        private void each(Consumer<DurableTimerListener> call) {
            for (DurableTimerListener l : all) {
                try {
                    call.accept(l);
                } catch (RuntimeException e) {
                    log.log(System.Logger.Level.WARNING, () -> "Durable timer listener " + l + " threw", e);
                }
            }
        }

        @Override
        public void scheduled(String task) {
            each(l -> l.scheduled(task));
        }

        @Override
        public void cancelled(String task) {
            each(l -> l.cancelled(task));
        }

        @Override
        public void started(DurableTimeout timeout, Duration lateness) {
            each(l -> l.started(timeout, lateness));
        }

        @Override
        public void fired(String task) {
            each(l -> l.fired(task));
        }

        @Override
        public void retried(String task, Throwable error) {
            each(l -> l.retried(task, error));
        }

        @Override
        public void failed(String task, Throwable error) {
            each(l -> l.failed(task, error));
        }
    }

    /**
     * Settings of a {@link JdbcDurableTimer}; the defaults are those of the {@code wheel-timer.durable.*}
     * properties. Each setter rejects a value that is wrong on its own; {@link #build()} checks them
     * together. Errors name the setting, the value and what is allowed.
     */
    public static final class Builder {

        private final DataSource dataSource;
        private final PlatformTransactionManager transactionManager;
        private final Timer timer;
        private String tableName = DEFAULT_TABLE_NAME;
        private Duration pollInterval = Duration.ofSeconds(1);
        private Duration lookahead = Duration.ofSeconds(10);
        private Duration lease = Duration.ofSeconds(30);
        private int batchSize = 1000;
        private Duration retryDelay = Duration.ofSeconds(10);
        private int maxAttempts = 10;
        private String instanceId;
        private Executor executor;
        private Clock clock = Clock.systemUTC();
        private final Map<String, DurableTimeoutHandler> handlers = new LinkedHashMap<>();
        private final List<DurableTimerListener> listeners = new ArrayList<>();

        private Builder(DataSource dataSource, PlatformTransactionManager transactionManager, Timer timer) {
            this.dataSource = dataSource;
            this.transactionManager = transactionManager;
            this.timer = timer;
        }

        /**
         * The table; default {@code wheel_timer_timeouts}. A plain SQL identifier of at most 50
         * characters; the instances' leases are in the table of that name with {@code _instances}
         * appended.
         */
        public Builder tableName(String tableName) {
            Objects.requireNonNull(tableName, "tableName must not be null");
            if (!IDENTIFIER.matcher(tableName).matches() || tableName.length() > MAX_TABLE_NAME_LENGTH) {
                throw new IllegalArgumentException("tableName is \"" + tableName + "\"; it must be a plain SQL"
                        + " identifier: a letter or _, then letters, digits or _, at most " + MAX_TABLE_NAME_LENGTH
                        + " characters");
            }
            this.tableName = tableName;
            return this;
        }

        /** How often this instance claims due timeouts and renews its lease; default 1 s, at least 1 ms. */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = atLeastOneMillisecond("pollInterval", pollInterval);
            return this;
        }

        /** How far ahead of their deadline unheld timeouts are claimed; default 10 s, at least the poll interval. */
        public Builder lookahead(Duration lookahead) {
            this.lookahead = atLeastOneMillisecond("lookahead", lookahead);
            return this;
        }

        /** How long a claim holds without renewal; default 30 s, more than twice the poll interval. */
        public Builder lease(Duration lease) {
            this.lease = atLeastOneMillisecond("lease", lease);
            return this;
        }

        /** Most timeouts claimed in one poll; default 1000, at least 1. */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1) {
                throw new IllegalArgumentException("batchSize is " + batchSize + "; it must be at least 1");
            }
            this.batchSize = batchSize;
            return this;
        }

        /** Wait before a failed run is retried; default 10 s, at least 1 ms. */
        public Builder retryDelay(Duration retryDelay) {
            this.retryDelay = atLeastOneMillisecond("retryDelay", retryDelay);
            return this;
        }

        /** Runs that throw before a timeout is given up; default 10, at least 1. */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts is " + maxAttempts + "; it must be at least 1");
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /**
         * Who this instance is, 1 to 200 characters; default the host name and a random suffix. Two
         * live instances must never share one.
         */
        public Builder instanceId(String instanceId) {
            Objects.requireNonNull(instanceId, "instanceId must not be null");
            checkName("instanceId", instanceId);
            this.instanceId = instanceId;
            return this;
        }

        /** Where handlers run (never the wheel's worker); default a {@code SimpleAsyncTaskExecutor} of its own. */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor must not be null");
            return this;
        }

        /** The wall clock deadlines and leases are read against; default the system UTC clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock must not be null");
            return this;
        }

        /** Handles the timeouts of {@code task}; one handler per task. */
        public Builder handler(String task, DurableTimeoutHandler handler) {
            Objects.requireNonNull(task, "task must not be null");
            Objects.requireNonNull(handler, "handler must not be null");
            checkName("task", task);
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
         * @throws IllegalArgumentException if {@code lookahead} is less than {@code pollInterval}, or
         *     {@code lease} not more than twice {@code pollInterval}
         */
        public JdbcDurableTimer build() {
            if (lookahead.compareTo(pollInterval) < 0) {
                throw new IllegalArgumentException("lookahead is " + format(lookahead)
                        + "; it must be at least pollInterval (" + format(pollInterval) + ")");
            }
            if (lease.compareTo(pollInterval.multipliedBy(2)) <= 0) {
                throw new IllegalArgumentException("lease is " + format(lease) + "; it must be more than twice"
                        + " pollInterval (" + format(pollInterval) + "), so more than "
                        + format(pollInterval.multipliedBy(2)));
            }
            return new JdbcDurableTimer(this);
        }

        private static Duration atLeastOneMillisecond(String setting, Duration value) {
            Objects.requireNonNull(value, () -> setting + " must not be null");
            if (value.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException(
                        setting + " is " + format(value) + "; it must be positive, at least 1ms");
            }
            return value;
        }
    }

    /** {@code 1s}, {@code 250ms}, the way the properties are written; ISO-8601 when finer. */
    static String format(Duration duration) {
        if (duration.getNano() == 0) {
            return duration.getSeconds() + "s";
        }
        if (duration.getNano() % 1_000_000 == 0) {
            return duration.toMillis() + "ms";
        }
        return duration.toString();
    }
}
