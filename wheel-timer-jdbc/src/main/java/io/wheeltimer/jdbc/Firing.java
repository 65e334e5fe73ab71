package io.wheeltimer.jdbc;

import io.wheeltimer.internal.RepeatLog;
import io.wheeltimer.jdbc.ArmedTimeouts.Entry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Runs the timeouts that come due: from the wheel's thread to the executor (never SQL on the
 * wheel's worker), then one transaction that deletes the row, as the version this instance armed
 * and still holds, and runs the handler, so that what the handler writes through the same
 * {@code DataSource} commits with the deletion, once. A handler that throws rolls both back and
 * its timeout is retried after the retry delay (a new version of the row, armed here), until it has
 * thrown {@code maxAttempts} times; then the row is kept with its error, held by nobody: given up.
 *
 * <p>A run whose row is no longer the armed version (cancelled, rescheduled, taken over) commits
 * nothing; what the table then holds for this instance is armed instead ({@link #reconcile}). A run
 * that could not reach the database is not counted: it is armed again after the retry delay.
 */
final class Firing {

    private static final System.Logger log = System.getLogger(JdbcDurableTimer.class.getName());

    private final TimerSettings settings;
    private final ArmedTimeouts armed;
    private final Supplier<TimeoutTable> table;
    private final Transactions transactions;
    private final Map<String, DurableTimeoutHandler> handlers;
    private final DurableTimerListener listener;
    private final BooleanSupplier running;
    private final RepeatLog databaseTrouble;
    private final Clock clock;
    private final String retryDelay;

    private final Object inFlightLock = new Object();
    /** Runs handed to the executor and not finished; guarded by {@link #inFlightLock}. */
    private int inFlight;

    Firing(
            TimerSettings settings,
            ArmedTimeouts armed,
            Supplier<TimeoutTable> table,
            Transactions transactions,
            Map<String, DurableTimeoutHandler> handlers,
            DurableTimerListener listener,
            BooleanSupplier running,
            RepeatLog databaseTrouble) {
        this.settings = settings;
        this.armed = armed;
        this.table = table;
        this.transactions = transactions;
        this.handlers = handlers;
        this.listener = listener;
        this.running = running;
        this.databaseTrouble = databaseTrouble;
        this.clock = settings.clock();
        this.retryDelay = TimerSettings.format(settings.retryDelay());
    }

    /** On the wheel's thread: hands the run to the executor. */
    void dispatch(Entry entry) {
        if (!running.getAsBoolean() || !armed.isCurrent(entry)) {
            return;
        }
        synchronized (inFlightLock) {
            inFlight++;
        }
        try {
            settings.executor().execute(() -> {
                try {
                    fire(entry);
                } finally {
                    ended();
                }
            });
        } catch (RejectedExecutionException e) {
            ended();
            log.log(
                    System.Logger.Level.WARNING,
                    () -> "Durable timer " + settings.instanceId() + ": the executor refused the timeout of task \""
                            + entry.id.task() + "\" for key \"" + entry.id.key() + "\"; retried in " + retryDelay,
                    e);
            armAgainLater(entry);
        }
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

    private void ended() {
        synchronized (inFlightLock) {
            if (--inFlight == 0) {
                inFlightLock.notifyAll();
            }
        }
    }

    /** On the executor: delete the row and run the handler in one transaction. */
    private void fire(Entry entry) {
        if (!running.getAsBoolean() || !armed.isCurrent(entry)) {
            return;
        }
        DurableTimeoutHandler handler = handlers.get(entry.id.task());
        DurableTimeout timeout = entry.timeout;
        Throwable[] thrown = new Throwable[1];
        Boolean ran;
        try {
            ran = transactions.template().execute(status -> {
                if (!table.get().deleteForFiring(timeout.task(), timeout.key(), entry.version, settings.instanceId())) {
                    return false; // cancelled, rescheduled, or taken over by another instance meanwhile
                }
                Duration lateness = Duration.ofMillis(
                        Math.max(0, clock.millis() - timeout.deadline().toEpochMilli()));
                listener.started(timeout, lateness);
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
                databaseTrouble.report(
                        () -> "Durable timer " + settings.instanceId() + " could not fire the timeout of task \""
                                + timeout.task() + "\" for key \"" + timeout.key() + "\"; retried in " + retryDelay,
                        e);
                armAgainLater(entry);
            }
            return;
        }
        if (Boolean.TRUE.equals(ran)) {
            armed.forget(entry);
            listener.fired(timeout.task());
        } else {
            reconcile(entry);
        }
    }

    /** The handler threw and its transaction rolled back: retry the timeout later, or give it up. */
    private void handlerFailed(Entry entry, Throwable error) {
        int attempts = entry.attempts + 1;
        String task = entry.id.task();
        String key = entry.id.key();
        String message = TimerSettings.truncate(String.valueOf(error), TimerSettings.MAX_ERROR_LENGTH);
        String holder = settings.instanceId();
        boolean updated;
        try {
            if (attempts >= settings.maxAttempts()) {
                long now = clock.millis();
                updated = transactions.required(
                        () -> table.get().giveUp(task, key, entry.version, holder, attempts, message, now));
                if (updated) {
                    armed.forget(entry);
                    log.log(
                            System.Logger.Level.ERROR,
                            () -> "Durable timeout of task \"" + task + "\" for key \"" + key + "\" given up after "
                                    + attempts + " runs that threw; kept in table " + settings.tableName()
                                    + " with its last error: " + message,
                            error);
                    listener.failed(task, error);
                }
            } else {
                long newVersion = TimeoutTable.newVersion();
                long dueAt = clock.millis() + settings.retryDelay().toMillis();
                updated = transactions.required(() ->
                        table.get().retry(task, key, entry.version, holder, attempts, message, newVersion, dueAt));
                if (updated) {
                    log.log(
                            System.Logger.Level.WARNING,
                            () -> "Durable timeout of task \"" + task + "\" for key \"" + key + "\" threw (run "
                                    + attempts + " of at most " + settings.maxAttempts() + "); retried in "
                                    + retryDelay,
                            error);
                    armed.arm(new DurableTimeout(task, key, Instant.ofEpochMilli(dueAt)), newVersion, attempts, dueAt);
                    listener.retried(task, error);
                }
            }
        } catch (RuntimeException e) {
            // The run is not counted: the handler runs again, as after a crash.
            databaseTrouble.report(
                    () -> "Durable timer " + holder + " could not record the failure of the timeout of task \"" + task
                            + "\" for key \"" + key + "\"; it runs again in " + retryDelay,
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
    private void reconcile(Entry entry) {
        Optional<TimeoutTable.Row> row;
        try {
            row = table.get().pending(entry.id.task(), entry.id.key());
        } catch (RuntimeException e) {
            databaseTrouble.report(
                    () -> "Durable timer " + settings.instanceId() + " could not read the timeout of task \""
                            + entry.id.task() + "\" for key \"" + entry.id.key() + "\"; looked at again in "
                            + retryDelay,
                    e);
            armAgainLater(entry);
            return;
        }
        if (row.isPresent() && settings.instanceId().equals(row.get().holder())) {
            TimeoutTable.Row r = row.get();
            Entry current = armed.current(r.task(), r.key());
            if (current == null || current == entry || current.version != r.version()) {
                armed.arm(
                        new DurableTimeout(r.task(), r.key(), Instant.ofEpochMilli(r.deadline())),
                        r.version(),
                        r.attempts(),
                        r.deadline());
            }
        } else {
            armed.forget(entry);
        }
    }

    /** Arms {@code entry} again, the same version, after the retry delay: its run did not happen. */
    private void armAgainLater(Entry entry) {
        if (running.getAsBoolean()) {
            armed.armAgain(entry, clock.millis() + settings.retryDelay().toMillis());
        }
    }

    /** Carries the handler's exception out of the transaction callback, so that it rolls back. */
    private static final class HandlerFailed extends RuntimeException {
        HandlerFailed(Throwable cause) {
            super(null, cause, false, false);
        }
    }
}
