package io.wheeltimer.jdbc;

import io.wheeltimer.jdbc.ArmedTimeouts.Entry;
import io.wheeltimer.jdbc.internal.table.StorableText;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What follows a run that failed: every run whose transaction does not commit (a handler that
 * throws, a transaction marked rollback-only, a constraint broken at flush or commit) counts. Its
 * timeout is retried later (a new version of the row, held and armed here when due within the
 * lookahead, else unheld for a claim), until {@code maxAttempts} runs failed; then the row is kept
 * with its last error, held by nobody: given up. The retries back off: the first after the retry
 * delay, each next one twice as long, at most the retry max delay, each with a random factor of up to
 * 20% ({@link TimerSettings#retryWait}), so that the timeouts that failed together during a
 * downstream outage neither give up within minutes nor come back in lockstep. A failure that cannot be recorded in the
 * table is counted in memory and recorded with the next one.
 */
final class Retries {

    private static final System.Logger log = TimerLog.LOGGER;

    private final TimerContext context;
    private final TimerSettings settings;
    private final ArmedTimeouts armed;

    Retries(TimerContext context, ArmedTimeouts armed) {
        this.context = context;
        this.settings = context.settings();
        this.armed = armed;
    }

    /**
     * A run did not commit: retries the timeout later, or gives it up. False when the row was not
     * this entry's version any more (cancelled or rescheduled while the handler ran), so that the
     * caller reconciles memory with the table; true otherwise.
     */
    boolean failed(Entry entry, Throwable error) {
        int attempts = entry.attempts + 1;
        String task = entry.id.task();
        String key = entry.id.key();
        String message = StorableText.storable(describe(error), StorableText.MAX_ERROR_LENGTH);
        String holder = settings.instanceId();
        boolean updated;
        try {
            long now = settings.clock().millis();
            if (attempts >= settings.maxAttempts()) {
                updated = context.transactions()
                        .joinedOrAutoCommit(
                                () -> context.table().giveUp(task, key, entry.version, holder, attempts, message, now));
                if (updated) {
                    armed.forget(entry);
                    log.log(
                            System.Logger.Level.ERROR,
                            () -> "Durable timeout of task \"" + task + "\" for key \"" + key + "\" given up after "
                                    + attempts + " runs that failed; kept in table " + settings.tableName()
                                    + " with its last error: " + message,
                            error);
                    context.listener().failed(task, error);
                }
            } else {
                long newVersion = context.table().nextVersion(entry.version);
                Duration wait =
                        settings.retryWait(attempts, ThreadLocalRandom.current().nextDouble());
                long dueAt = now + wait.toMillis();
                // Held here only while it is due within the lookahead, as a claim would take it.
                String newHolder = dueAt <= now + settings.lookahead().toMillis() ? holder : null;
                updated = context.transactions()
                        .joinedOrAutoCommit(() -> context.table()
                                .retry(
                                        task,
                                        key,
                                        entry.version,
                                        holder,
                                        attempts,
                                        message,
                                        newVersion,
                                        dueAt,
                                        newHolder));
                if (updated) {
                    log.log(
                            System.Logger.Level.WARNING,
                            () -> "Durable timeout of task \"" + task + "\" for key \"" + key + "\" failed (run "
                                    + attempts + " of at most " + settings.maxAttempts() + "); retried in "
                                    + Durations.format(wait),
                            error);
                    if (newHolder != null) {
                        armed.arm(entry.timeout, newVersion, attempts, dueAt);
                    } else {
                        armed.forget(entry);
                    }
                    context.listener().retried(task, error);
                }
            }
        } catch (RuntimeException e) {
            // Counted here, recorded with the next failure; the run is tried again.
            context.databaseTrouble()
                    .report(
                            () -> "Durable timer " + holder + " could not record the failed run " + attempts
                                    + " of the timeout of task \"" + task + "\" for key \"" + key
                                    + "\"; it runs again in "
                                    + Durations.format(settings.retryDelay()),
                            e);
            armAgainLater(entry, Math.min(attempts, settings.maxAttempts() - 1));
            return true;
        }
        return updated;
    }

    /**
     * The error and its causes, each as {@code Throwable.toString()} gives it: a failed commit's
     * wrapper ("JDBC commit failed") says little, the constraint it reports says what to fix.
     */
    static String describe(Throwable error) {
        StringBuilder text = new StringBuilder(String.valueOf(error));
        Throwable cause = error.getCause();
        for (int depth = 0; cause != null && cause != error && depth < 5; depth++, cause = cause.getCause()) {
            text.append("; caused by ").append(cause);
        }
        return text.toString();
    }

    /** Arms {@code entry} again, the same version, after the retry delay: its run did not happen or was not recorded. */
    void armAgainLater(Entry entry, int attempts) {
        if (context.isRunning()) {
            armed.armAgain(
                    entry,
                    attempts,
                    settings.clock().millis() + settings.retryDelay().toMillis());
        }
    }
}
