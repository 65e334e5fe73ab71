package io.wheeltimer.jdbc;

import io.wheeltimer.Timer;
import io.wheeltimer.internal.RepeatLog;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The parts of one {@link JdbcDurableTimer}, wired to each other: who calls whom is read here, in
 * one constructor. Also what the lifecycle asks of the table as a whole: its shape at the start, and
 * the hand-over of what this instance holds at the stop.
 */
final class TimerParts {

    /** At most one WARN line per this interval for each trouble that repeats. */
    private static final long WARN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final System.Logger log = System.getLogger(JdbcDurableTimer.class.getName());

    final TimerSettings settings;
    /** The database's clock as this instance reads it; null when the builder's clock judges. */
    final DatabaseClock databaseClock;

    final Map<String, DurableTimeoutHandler> handlers;
    final Transactions transactions;
    final ArmedTimeouts armed;
    final Firing firing;
    final LifeLock lifeLock;
    final Poller poller;
    final Scheduling scheduling;
    final BulkScheduling bulk;
    final Mending mending;

    private final JdbcTemplate jdbc;
    private final JdbcTemplate bounded;
    private final Object tableLock = new Object();
    private volatile TimeoutTable table;

    TimerParts(
            TimerSettings built,
            DataSource dataSource,
            PlatformTransactionManager transactionManager,
            Timer timer,
            Map<String, DurableTimeoutHandler> handlers,
            List<DurableTimerListener> listeners,
            BooleanSupplier running) {
        this.databaseClock = built.timeSource() == TimeSource.DATABASE
                ? new DatabaseClock(built.clock(), System::nanoTime, () -> table().databaseMillis())
                : null;
        TimerSettings settings = databaseClock != null ? built.withClock(databaseClock) : built;
        this.settings = settings;
        this.jdbc = new JdbcTemplate(dataSource);
        this.bounded = new JdbcTemplate(dataSource);
        bounded.setQueryTimeout((int) settings.statementTimeout().toSeconds());
        this.transactions = new Transactions(
                transactionManager, dataSource, settings.instanceId() + " (table " + settings.tableName() + ")");
        this.handlers = Map.copyOf(handlers);
        DurableTimerListener listener = new Listeners(listeners);
        RepeatLog databaseTrouble =
                new RepeatLog(log, "failures to reach the database", WARN_INTERVAL_NANOS, System::nanoTime);
        RepeatLog wheelRefusals =
                new RepeatLog(log, "timeouts the wheel refused", WARN_INTERVAL_NANOS, System::nanoTime);
        this.armed =
                new ArmedTimeouts(timer, settings.clock(), entry -> firing().dispatch(entry), wheelRefusals, settings);
        this.firing = new Firing(
                settings, armed, this::table, transactions, this.handlers, listener, running, databaseTrouble);
        this.lifeLock = new LifeLock(dataSource, this::table, running, settings);
        this.poller = new Poller(
                settings, armed, firing, this::table, transactions, running, databaseTrouble, databaseClock, lifeLock);
        this.scheduling = new Scheduling(settings, this.handlers, armed, this::table, transactions, listener);
        this.bulk = new BulkScheduling(settings, scheduling, armed, this::table, transactions, listener);
        this.mending = new Mending(settings, this.handlers.keySet(), armed, this::table, transactions);
    }

    private Firing firing() {
        return firing;
    }

    /** The table's statements, in the dialect of the database, found at the first use. */
    TimeoutTable table() {
        TimeoutTable t = table;
        if (t == null) {
            synchronized (tableLock) {
                if (table == null) {
                    table = new TimeoutTable(
                            Dialect.detect(jdbc, bounded, settings.tableName()), handlers.keySet(), settings.clock());
                }
                t = table;
            }
        }
        return t;
    }

    /**
     * A table that is missing or lacks columns fails the start; a database that cannot be reached
     * does not (the polls report it, and the shape is checked at the next start).
     */
    void checkTable() {
        try {
            table().checkShape();
            lifeLock.checkAtStart();
        } catch (DataAccessResourceFailureException e) {
            log.log(
                    System.Logger.Level.WARNING,
                    () -> "Durable timer " + settings.instanceId() + " could not check table " + settings.tableName()
                            + " at its start: the database cannot be reached; it polls until it can",
                    e);
        }
    }

    /**
     * At the stop, once no run of this instance is left: releases every row it holds and deletes its
     * lease, then lets go of its life lock, so that the other instances take its timeouts at their
     * next poll.
     */
    void handOver() {
        try {
            // Deleting the lease row alone would let the others claim what this instance held; the
            // release also shows it in the table. A row a late handler still runs is locked by it: the
            // release skips it (the run deletes it at its commit, or the lease gives it up).
            transactions.executeWithoutResult(() -> {
                TimeoutTable t = table();
                t.releaseAll(settings.instanceId());
                t.deleteLease(settings.instanceId());
            });
        } catch (RuntimeException e) {
            log.log(
                    System.Logger.Level.WARNING,
                    () -> "Durable timer " + settings.instanceId() + " could not release its timeouts in table "
                            + settings.tableName() + "; the other instances take them once its life lock is let go"
                            + " (next), or where the database has none (H2) when its lease runs out, within "
                            + TimerSettings.format(settings.lease()),
                    e);
        }
        // Once the lease row is gone; if it could not be deleted, a free lock lets the others take over now.
        lifeLock.release();
    }
}
