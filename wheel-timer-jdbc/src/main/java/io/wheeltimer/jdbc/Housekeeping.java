package io.wheeltimer.jdbc;

import io.wheeltimer.jdbc.internal.table.TimeoutTable;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * What the polls leave off their critical path, so that only the lease renewal and the claim can make
 * a poll fail. After the first successful claim, on the poll thread: the rows this instance id holds
 * of tasks it has no handler for are let go (an earlier life had that handler: an instance that has it
 * claims them), and the lease rows of long-gone instances are deleted; a failure there is logged and
 * the next poll tries again. Hourly, on a thread of its own: the rows of tasks no handler here knows
 * are counted and logged (they are never deleted), and the count is kept for the meter; a count that
 * fails (a table of millions of such rows may take longer than the query timeout) is logged and tried
 * again after {@link #RETRY}, never at every poll. Each statement is bounded by the timer's query
 * timeout.
 */
final class Housekeeping {

    private static final System.Logger log = TimerLog.LOGGER;

    /** How often the rows of tasks no handler here knows are counted. */
    private static final Duration UNHANDLED_INTERVAL = Duration.ofHours(1);

    /** How long after a failed count of the rows of unhandled tasks it is tried again. */
    static final Duration RETRY = Duration.ofMinutes(10);

    private final TimerContext context;
    private final TimerSettings settings;

    /** Where the rows of unhandled tasks are counted, off the poll thread; null while stopped. */
    private volatile ScheduledThreadPoolExecutor countThread;

    /** Whether the tidying after the first claim succeeded. Poll thread only. */
    private boolean tidied;

    /** The pending rows of tasks no handler here knows, at the last count that succeeded; -1 before it. */
    private volatile long unhandledRows = -1;

    Housekeeping(TimerContext context) {
        this.context = context;
        this.settings = context.settings();
    }

    /** At a start: the tidying after the next claim, and the first count at the second poll's time. */
    void start() {
        tidied = false;
        ScheduledThreadPoolExecutor thread =
                TimerThreads.single("wheel-timer-durable-housekeeping-" + settings.instanceId());
        countThread = thread;
        // At the second poll's time, then hourly: not at startup with the rest.
        thread.schedule(this::countUnhandled, settings.pollInterval().toNanos(), TimeUnit.NANOSECONDS);
    }

    /** At a stop: a count under way is only a log line, so it is interrupted. */
    void stop() {
        ScheduledThreadPoolExecutor thread = countThread;
        if (thread != null) {
            thread.shutdownNow();
            countThread = null;
        }
    }

    /** The pending rows of tasks no handler here knows, as the last hourly count found them; empty before it. */
    OptionalLong unhandledRows() {
        long rows = unhandledRows;
        return rows < 0 ? OptionalLong.empty() : OptionalLong.of(rows);
    }

    /**
     * On the poll thread, after a successful claim, until it once succeeds: lets go of the rows this id
     * holds of tasks it has no handler for, and deletes the lease rows of long-gone instances. A failure
     * is logged and the next poll tries again; it never fails the poll.
     */
    void afterClaim(TimeoutTable t, long nowMillis) {
        if (tidied) {
            return;
        }
        try {
            String instanceId = settings.instanceId();
            int released = context.transactions().joinedOrOwn(status -> t.releaseUnhandled(instanceId));
            if (released > 0) {
                log.log(
                        System.Logger.Level.INFO,
                        () -> "Durable timer " + instanceId + " let go of " + released + " timeouts in table "
                                + settings.tableName() + " that an earlier life of this instance id held, of tasks it"
                                + " has no handler for; an instance that handles them takes them");
            }
            long leaseMillis = settings.lease().toMillis();
            context.transactions().joinedOrOwnNoResult(() -> t.deleteExpiredLeases(nowMillis - leaseMillis));
            tidied = true;
        } catch (RuntimeException e) {
            context.databaseTrouble()
                    .report(
                            () -> "Durable timer " + settings.instanceId() + " could not tidy table "
                                    + settings.tableName()
                                    + " after its first poll (let go of rows of tasks it has no handler for, delete the"
                                    + " leases of long-gone instances); its next poll tries again",
                            e);
        }
    }

    /**
     * On the count's thread, hourly: at WARN, once per task, the rows of tasks no handler here knows,
     * which are never claimed here, nor deleted. Then plans the next count.
     */
    private void countUnhandled() {
        if (!context.isRunning()) {
            return;
        }
        Duration next = UNHANDLED_INTERVAL;
        try {
            TimeoutTable t = context.table();
            Map<String, Long> counted = t.countUnhandled();
            unhandledRows = counted.values().stream().mapToLong(Long::longValue).sum();
            counted.forEach((task, count) -> log.log(
                    System.Logger.Level.WARNING,
                    () -> "Table " + settings.tableName() + " has " + count + " pending timeouts of task \""
                            + task + "\", which no handler of durable timer " + settings.instanceId()
                            + " knows (the known tasks are " + new TreeSet<>(t.tasks()) + "); they are kept"
                            + " for an instance that handles the task to run, and this is logged hourly"));
        } catch (RuntimeException e) {
            log.log(
                    System.Logger.Level.WARNING,
                    () -> "Durable timer " + settings.instanceId() + " could not count the rows of tasks it has no"
                            + " handler for in table " + settings.tableName() + " within its query timeout of "
                            + Durations.format(settings.statementTimeout()) + "; this changes nothing for the"
                            + " timeouts it runs, and it counts again in "
                            + Durations.format(RETRY),
                    e);
            next = RETRY;
        }
        ScheduledThreadPoolExecutor thread = countThread;
        if (thread != null) {
            try {
                thread.schedule(this::countUnhandled, next.toNanos(), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException stopping) {
                // Stopped meanwhile.
            }
        }
    }
}
