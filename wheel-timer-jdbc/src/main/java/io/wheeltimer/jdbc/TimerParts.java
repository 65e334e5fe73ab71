package io.wheeltimer.jdbc;

import io.wheeltimer.Timer;
import io.wheeltimer.internal.RepeatLog;
import io.wheeltimer.jdbc.internal.table.TimeoutTable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The parts of one {@link JdbcDurableTimer}, wired to each other: who calls whom is read here, in
 * one constructor. Each part receives the {@link TimerContext} that all share, and the parts it calls;
 * none builds its own collaborators. Also what the lifecycle asks of the table as a whole: its shape
 * at the start, and the hand-over of what this instance holds at the stop.
 */
final class TimerParts {

    /** At most one WARN line per this interval for each trouble that repeats. */
    private static final long WARN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final System.Logger log = TimerLog.LOGGER;

    final TimerContext context;
    final TimerSettings settings;

    final ArmedTimeouts armed;
    final Firing firing;
    final LifeLock lifeLock;
    final Poller poller;
    final Scheduling scheduling;
    final BulkScheduling bulk;
    final Mending mending;

    TimerParts(
            TimerSettings built,
            DataSource dataSource,
            PlatformTransactionManager transactionManager,
            Timer timer,
            Map<String, DurableTimeoutHandler> handlers,
            List<DurableTimerListener> listeners,
            BooleanSupplier running) {
        // The database's clock reads the table, which is opened with the settings that clock judges by;
        // it reads only once the timer runs, long after this constructor.
        DatabaseClock databaseClock = built.timeSource() == TimeSource.DATABASE
                ? new DatabaseClock(built.clock(), System::nanoTime, () -> table().databaseMillis())
                : null;
        TimerSettings settings = databaseClock != null ? built.withClock(databaseClock) : built;
        this.settings = settings;
        Map<String, DurableTimeoutHandler> byTask = Map.copyOf(handlers);
        this.context = new TimerContext(
                settings,
                new LazyTable(dataSource, settings, byTask.keySet()),
                new Transactions(
                        transactionManager,
                        dataSource,
                        settings.instanceId() + " (table " + settings.tableName() + ")"),
                byTask,
                new Listeners(listeners),
                running,
                new RepeatLog(log, "failures to reach the database", WARN_INTERVAL_NANOS, System::nanoTime),
                databaseClock);
        RepeatLog wheelRefusals =
                new RepeatLog(log, "timeouts the wheel refused", WARN_INTERVAL_NANOS, System::nanoTime);
        // The wheel fires into Firing, which arms through ArmedTimeouts: the entry reaches it once both exist.
        this.armed =
                new ArmedTimeouts(timer, settings.clock(), entry -> firing().dispatch(entry), wheelRefusals, settings);
        this.firing = new Firing(context, armed, new Retries(context, armed));
        this.lifeLock = new LifeLock(context, dataSource);
        this.poller = new Poller(context, armed, firing, new Lease(context), lifeLock, new Housekeeping(context));
        this.scheduling = new Scheduling(context, armed, new TimeoutData(settings));
        this.bulk = new BulkScheduling(context, scheduling, armed);
        this.mending = new Mending(context, armed);
    }

    private Firing firing() {
        return firing;
    }

    /** The table's statements, in the dialect of the database, found at the first use. */
    TimeoutTable table() {
        return context.table();
    }

    /**
     * A table that is missing or lacks columns fails the start; a database that cannot be reached
     * does not (the polls report it, and the shape is checked at the next start).
     */
    void checkTable() {
        try {
            table().checkShape().ifPresent(p -> {
                throw new DurableTableException(p.table(), p.missing(), p.problem(), p.fix(), p.cause());
            });
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
            context.transactions().joinedOrOwnNoResult(() -> {
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
                            + Durations.format(settings.lease()),
                    e);
        }
        // Once the lease row is gone; if it could not be deleted, a free lock lets the others take over now.
        lifeLock.release();
    }
}
