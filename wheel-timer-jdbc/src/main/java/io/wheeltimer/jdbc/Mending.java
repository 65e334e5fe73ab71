package io.wheeltimer.jdbc;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Seeing and mending the whole table, not only what this instance holds: pages of pending and
 * given-up timeouts, one given-up timeout, and running a given-up one again or deleting it.
 *
 * <p>A retried timeout is pending again at once: due now (by the clock that judges deadlines), its
 * runs counted from 1, its data and scheduled deadline kept. It is held and armed here after the
 * commit when this instance holds timeouts and handles its task; otherwise it is left unheld, for
 * the next poll of an instance that handles it.
 */
final class Mending {

    private final TimerSettings settings;
    private final Set<String> tasks;
    private final ArmedTimeouts armed;
    private final Supplier<TimeoutTable> table;
    private final Transactions transactions;

    Mending(
            TimerSettings settings,
            Set<String> tasks,
            ArmedTimeouts armed,
            Supplier<TimeoutTable> table,
            Transactions transactions) {
        this.settings = settings;
        this.tasks = tasks;
        this.armed = armed;
        this.table = table;
        this.transactions = transactions;
    }

    List<DurableTimeout> pending(String task, int limit) {
        check(task, limit);
        return table.get().queries().pending(task, limit);
    }

    List<FailedTimeout> failed(String task, int limit) {
        check(task, limit);
        return table.get().queries().failed(task, limit);
    }

    Optional<FailedTimeout> findFailed(String task, String key) {
        Scheduling.checkArguments(task, key, "", "");
        return table.get().queries().findFailed(task, key);
    }

    boolean retry(String task, String key) {
        Scheduling.checkArguments(task, key, "", "");
        TimeoutTable t = table.get();
        long now = settings.clock().millis();
        boolean hold = armed.isHolding() && tasks.contains(task);
        Optional<TimeoutQueries.Retried> written = transactions.writeTogether(
                () -> t.queries().retry(task, key, now, hold ? settings.instanceId() : null, t.nextVersion(0)),
                retried -> retried.ifPresent(r -> {
                    if (hold) {
                        armed.arm(
                                new DurableTimeout(task, key, Instant.ofEpochMilli(r.deadline())), r.version(), 0, now);
                    }
                }));
        return written.isPresent();
    }

    boolean discard(String task, String key) {
        Scheduling.checkArguments(task, key, "", "");
        return transactions.required(() -> table.get().queries().discard(task, key));
    }

    private static void check(String task, int limit) {
        if (task != null) {
            TimerSettings.name("task", task);
        }
        TimerSettings.limit(limit);
    }
}
