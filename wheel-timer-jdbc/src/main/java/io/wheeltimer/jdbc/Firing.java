package io.wheeltimer.jdbc;

import io.wheeltimer.internal.RepeatLog;
import io.wheeltimer.jdbc.ArmedTimeouts.Entry;
import io.wheeltimer.jdbc.internal.table.PendingRow;
import io.wheeltimer.jdbc.internal.table.StoredData;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the timeouts that come due: from the wheel's thread to the executor (never SQL on the
 * wheel's worker), then one transaction that deletes the row, as the version this instance armed
 * and still holds, and runs the handler, so that what the handler writes through the same
 * {@code DataSource} commits with the deletion, once. A handler that throws rolls both back and
 * {@link Retries} retries its timeout or gives it up. Only a run that could not start (the database
 * could not be reached, or the row could not be deleted) is not a failed run: it is armed again after
 * the retry delay.
 *
 * <p>A run whose row is no longer the armed version (cancelled, rescheduled, taken over) commits
 * nothing; what the table then holds for this instance is armed instead ({@link #reconcile}).
 */
final class Firing {

    private static final System.Logger log = TimerLog.LOGGER;

    private final TimerContext context;
    private final TimerSettings settings;
    private final ArmedTimeouts armed;
    /** A burst refused by a full executor is one WARN line per interval, not one per timeout. */
    private final RepeatLog executorRefusals =
            new RepeatLog(log, "timeouts the executor refused", TimeUnit.SECONDS.toNanos(10), System::nanoTime);

    private final Retries retries;
    private final DurableTimeoutContext timeoutContext;

    private final Object inFlightLock = new Object();
    /** Runs handed to the executor and not finished; guarded by {@link #inFlightLock}. */
    private int inFlight;
    /** The rows of those runs, so that a poll never arms one of them again. */
    private final Set<ArmedTimeouts.Id> busy = ConcurrentHashMap.newKeySet();
    /** Entries that came due while a run of their row was under way here, by row. */
    private final Map<ArmedTimeouts.Id, Entry> waitingForItsRow = new ConcurrentHashMap<>();
    /** Runs handed to the executor that have not started: waiting for a thread. */
    private final AtomicInteger waitingForAThread = new AtomicInteger();

    Firing(TimerContext context, ArmedTimeouts armed, Retries retries) {
        this.context = context;
        this.settings = context.settings();
        this.armed = armed;
        this.timeoutContext = context.settings().context();
        this.retries = retries;
    }

    /**
     * On the wheel's thread: hands the run to the executor. An entry that comes due while a run of its
     * row is still under way here (a retry, or a reschedule to now, armed before that run ended) waits
     * for that run: it is handed over the moment the run ends.
     */
    void dispatch(Entry entry) {
        if (!context.isRunning() || !armed.isCurrent(entry)) {
            return;
        }
        // Put first, then look whether the row is busy: a run that ends in between finds it and hands it over.
        waitingForItsRow.put(entry.id, entry);
        if (!busy.add(entry.id)) {
            return;
        }
        waitingForItsRow.remove(entry.id, entry);
        synchronized (inFlightLock) {
            inFlight++;
        }
        waitingForAThread.incrementAndGet();
        try {
            settings.executor().execute(() -> {
                waitingForAThread.decrementAndGet();
                try {
                    fire(entry);
                } finally {
                    ended(entry);
                }
            });
        } catch (RejectedExecutionException e) {
            waitingForAThread.decrementAndGet();
            ended(entry);
            executorRefusals.report(
                    () -> "Durable timer " + settings.instanceId() + ": the executor refused the timeout of task \""
                            + entry.id.task() + "\" for key \"" + entry.id.key() + "\" (it is full: a burst due at"
                            + " once); the next poll releases it for an instance with room",
                    e);
            armed.refused(entry);
        }
    }

    /** Whether a run of the row of (task, key) was handed to the executor here and has not ended. */
    boolean isBusy(String task, String key) {
        return busy.contains(new ArmedTimeouts.Id(task, key));
    }

    /** How many runs wait for a thread of the executor. */
    int waitingForAThread() {
        return waitingForAThread.get();
    }

    /** Waits up to {@code timeout} for the runs handed to the executor to end. */
    void awaitRuns(Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        synchronized (inFlightLock) {
            long left;
            while (inFlight > 0 && (left = end - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(inFlightLock, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void ended(Entry entry) {
        busy.remove(entry.id);
        synchronized (inFlightLock) {
            if (--inFlight == 0) {
                inFlightLock.notifyAll();
            }
        }
        Entry next = waitingForItsRow.remove(entry.id);
        if (next != null) {
            dispatch(next);
        }
    }

    /** On the executor: delete the row and run the handler in one transaction. */
    private void fire(Entry entry) {
        if (!context.isRunning() || !armed.isCurrent(entry)) {
            return;
        }
        DurableTimeoutHandler handler = context.handlers().get(entry.id.task());
        DurableTimeout armedTimeout = entry.timeout;
        boolean[] started = new boolean[1];
        Throwable[] thrown = new Throwable[1];
        Boolean ran;
        try {
            ran = context.transactions().joinedOrOwn(status -> {
                Optional<StoredData> stored = context.table()
                        .deleteForFiring(
                                armedTimeout.task(),
                                armedTimeout.key(),
                                entry.version,
                                settings.instanceId(),
                                judgedNowMillis());
                if (stored.isEmpty()) {
                    // Cancelled, rescheduled, taken over by another instance meanwhile, or not yet due
                    // by the clock that judges: reconciled below.
                    return false;
                }
                started[0] = true;
                // The data and context travel with the row; the deadline is the one scheduled.
                DurableTimeout timeout = new DurableTimeout(
                        armedTimeout.task(),
                        armedTimeout.key(),
                        armedTimeout.deadline(),
                        stored.get().data(),
                        entry.attempts + 1);
                context.listener()
                        .started(
                                timeout,
                                lateness(
                                        settings.clock().millis(),
                                        timeout.deadline().toEpochMilli()));
                try {
                    timeoutContext.run(stored.get().traceContext(), timeout, () -> {
                        handler.handle(timeout);
                        return null;
                    });
                } catch (Throwable e) {
                    thrown[0] = e;
                    throw new HandlerFailed(e);
                }
                return true;
            });
        } catch (RuntimeException e) {
            if (started[0]) {
                // The handler threw, or its transaction did not commit (rollback-only, a constraint
                // at commit): a failed run either way.
                if (!retries.failed(entry, thrown[0] != null ? thrown[0] : e)) {
                    reconcile(entry); // cancelled or rescheduled while the handler ran
                }
            } else {
                context.databaseTrouble()
                        .report(
                                () -> "Durable timer " + settings.instanceId()
                                        + " could not start the timeout of task \""
                                        + armedTimeout.task() + "\" for key \"" + armedTimeout.key() + "\"; retried in "
                                        + Durations.format(settings.retryDelay()),
                                e);
                retries.armAgainLater(entry, entry.attempts);
            }
            return;
        }
        if (Boolean.TRUE.equals(ran)) {
            armed.forget(entry);
            context.listener().fired(armedTimeout.task());
        } else {
            reconcile(entry);
        }
    }

    /** The time that judges whether a row is due, for the statement that starts its run: null for the database's own. */
    private Long judgedNowMillis() {
        return settings.timeSource() == TimeSource.DATABASE
                ? null
                : settings.clock().millis();
    }

    /** The time that judges, read now: the database's in a statement of its own, or the builder's clock. */
    private long freshNowMillis() {
        if (settings.clock() instanceof DatabaseClock database) {
            try {
                return database.read();
            } catch (RuntimeException e) {
                return settings.clock()
                        .millis(); // the database's clock as last measured; the run's statement judges again
            }
        }
        return settings.clock().millis();
    }

    /**
     * The most lateness reported: one day. Far beyond the lateness of an instance that keeps up (a
     * tick) or catches up after a restart (the outage), and small enough that a meter's total, a sum
     * of nanoseconds in a {@code long} (Micrometer's timers keep one), holds over 100,000 recordings at
     * the cap (292 years): uncapped, one deadline centuries past fills that total, and a second one
     * turns it negative.
     */
    static final Duration MAX_LATENESS = Duration.ofDays(1);

    /**
     * From {@code deadlineMillis} to {@code nowMillis}: zero when not late, and at most
     * {@link #MAX_LATENESS}, however far past the deadline is (an ancient {@code Instant} included).
     */
    static Duration lateness(long nowMillis, long deadlineMillis) {
        if (deadlineMillis >= nowMillis) {
            return Duration.ZERO;
        }
        long lateMillis = nowMillis - deadlineMillis;
        if (lateMillis < 0 || lateMillis > MAX_LATENESS.toMillis()) {
            return MAX_LATENESS; // the subtraction overflowed, or the deadline is more than the cap past
        }
        return Duration.ofMillis(lateMillis);
    }

    /**
     * The row was not this armed version any more: arm what the table holds for this instance, if
     * anything (a reschedule whose arming lost a race), or forget it.
     */
    private void reconcile(Entry entry) {
        Optional<PendingRow> row;
        try {
            row = context.table().pending(entry.id.task(), entry.id.key());
        } catch (RuntimeException e) {
            context.databaseTrouble()
                    .report(
                            () -> "Durable timer " + settings.instanceId() + " could not read the timeout of task \""
                                    + entry.id.task() + "\" for key \"" + entry.id.key() + "\"; looked at again in "
                                    + Durations.format(settings.retryDelay()),
                            e);
            retries.armAgainLater(entry, entry.attempts);
            return;
        }
        if (row.isPresent() && settings.instanceId().equals(row.get().holder())) {
            PendingRow r = row.get();
            if (r.version() == entry.version && armed.isCurrent(entry)) {
                // The very row it armed, still held here: not due yet by the clock that judges (the
                // offset this instance measured erred early, or the wheel fired before the deadline's
                // millisecond). Armed again for when it is due by that clock, read afresh.
                long waitMillis = Math.max(1, r.dueAt() - freshNowMillis());
                armed.armAgain(entry, entry.attempts, settings.clock().millis() + waitMillis);
                return;
            }
            Entry current = armed.current(r.task(), r.key());
            if (current == null || current == entry || current.version != r.version()) {
                armed.arm(
                        new DurableTimeout(r.task(), r.key(), Instant.ofEpochMilli(r.deadline())),
                        r.version(),
                        r.attempts(),
                        r.dueAt());
            }
        } else {
            armed.forget(entry);
        }
    }

    /** Carries the handler's exception out of the transaction callback, so that it rolls back. */
    private static final class HandlerFailed extends RuntimeException {
        HandlerFailed(Throwable cause) {
            super(null, cause, false, false);
        }
    }
}
