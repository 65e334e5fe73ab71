package io.wheeltimer.jdbc;

import io.wheeltimer.jdbc.internal.table.RetriedRow;
import io.wheeltimer.jdbc.internal.table.TimeoutTable;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

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

    /** Most timeouts {@code pending} and {@code failed} return at once. */
    static final int MAX_PAGE = 1000;

    /** The {@code limit} of a paged read: 1 to 1000. */
    static int checkLimit(int limit) {
        if (limit < 1 || limit > MAX_PAGE) {
            throw new IllegalArgumentException("limit is " + limit + "; it must be 1 to " + MAX_PAGE);
        }
        return limit;
    }

    private final TimerContext context;
    private final TimerSettings settings;
    private final Set<String> tasks;
    private final ArmedTimeouts armed;

    Mending(TimerContext context, ArmedTimeouts armed) {
        this.context = context;
        this.settings = context.settings();
        this.tasks = context.handlers().keySet();
        this.armed = armed;
    }

    List<DurableTimeout> pending(String task, int limit) {
        check(task, limit);
        return context.table().pendingPage(task, limit);
    }

    List<FailedTimeout> failed(String task, int limit) {
        check(task, limit);
        return context.table().failedPage(task, limit);
    }

    Optional<FailedTimeout> findFailed(String task, String key) {
        Names.checkTaskAndKey(task, key);
        return context.table().findFailed(task, key);
    }

    boolean retry(String task, String key) {
        Names.checkTaskAndKey(task, key);
        TimeoutTable t = context.table();
        long now = settings.clock().millis();
        boolean hold = armed.isHolding() && tasks.contains(task);
        Optional<RetriedRow> written = context.transactions()
                .joinedOrOwnThenOnCommit(
                        () -> t.retryFailed(task, key, now, hold ? settings.instanceId() : null, t.nextVersion(0)),
                        retried -> retried.ifPresent(r -> {
                            if (hold) {
                                armed.arm(
                                        new DurableTimeout(task, key, Instant.ofEpochMilli(r.deadline())),
                                        r.version(),
                                        0,
                                        now);
                            }
                        }));
        return written.isPresent();
    }

    boolean discard(String task, String key) {
        Names.checkTaskAndKey(task, key);
        return context.transactions().joinedOrAutoCommit(() -> context.table().discardFailed(task, key));
    }

    private static void check(String task, int limit) {
        if (task != null) {
            Names.name("task", task);
        }
        checkLimit(limit);
    }
}
