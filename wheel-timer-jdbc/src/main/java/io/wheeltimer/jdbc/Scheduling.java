package io.wheeltimer.jdbc;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;

/**
 * The calls an application makes: {@code schedule}, {@code cancel} and {@code find}. Each checks
 * its arguments, runs one statement in the caller's transaction (outside one, alone in auto-commit
 * mode: see {@link Transactions}), and changes what is armed only once that statement is committed:
 * a rollback leaves the wheel as it was. The version the table wrote decides which arming wins when
 * two commits of one row arm in the other order.
 */
final class Scheduling {

    private final TimerContext context;
    private final TimerSettings settings;
    private final ArmedTimeouts armed;
    private final TimeoutData data;

    /**
     * @param data turns what is scheduled with a timeout into the text stored with it
     */
    Scheduling(TimerContext context, ArmedTimeouts armed, TimeoutData data) {
        this.context = context;
        this.settings = context.settings();
        this.armed = armed;
        this.data = data;
    }

    /** Now plus {@code delay}, truncated to milliseconds; a delay of zero or less makes it now. */
    DurableTimeout schedule(String task, String key, Duration delay, Object data) {
        checkArguments(task, key, delay, "delay");
        checkKnown(task);
        String text = this.data.text(task, key, data);
        Instant now = settings.clock().instant();
        Instant deadline;
        try {
            deadline = delay.isNegative() || delay.isZero() ? now : now.plus(delay);
            deadline.toEpochMilli();
        } catch (DateTimeException | ArithmeticException e) {
            throw new IllegalArgumentException("delay is " + delay + "; it must put the deadline within the range"
                    + " of epoch milliseconds (about 292 million years)");
        }
        return upsert(task, key, deadline.truncatedTo(ChronoUnit.MILLIS), text);
    }

    /** At {@code deadline} truncated to milliseconds, as given even when it has passed (the lateness is honest). */
    DurableTimeout schedule(String task, String key, Instant deadline, Object data) {
        DurableTimeout timeout = checked(task, key, deadline, data);
        return upsert(task, key, timeout.deadline(), timeout.data());
    }

    /**
     * {@code timeout} as it is written: its deadline truncated to milliseconds, its data as text,
     * attempt 1, after the checks of a schedule.
     */
    DurableTimeout checked(String task, String key, Instant deadline, Object data) {
        checkArguments(task, key, deadline, "deadline");
        checkKnown(task);
        Instant truncated = deadline.truncatedTo(ChronoUnit.MILLIS);
        try {
            truncated.toEpochMilli();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("deadline is " + deadline + "; it must be within the range of epoch"
                    + " milliseconds (about 292 million years either side of 1970)");
        }
        return new DurableTimeout(task, key, truncated, this.data.text(task, key, data), 1);
    }

    /** What the context captures on this thread, to store with the timeouts it schedules. */
    String capture() {
        return data.capture();
    }

    boolean cancel(String task, String key) {
        Names.checkTaskAndKey(task, key);
        return context.transactions()
                .joinedOrAutoCommitThenOnCommit(
                        () -> context.table().deletePending(task, key),
                        version -> version.ifPresent(v -> {
                            armed.forget(task, key, v);
                            context.listener().cancelled(task);
                        }))
                .isPresent();
    }

    Optional<DurableTimeout> find(String task, String key) {
        Names.checkTaskAndKey(task, key);
        return context.table().findPending(task, key);
    }

    /**
     * Writes the row. It is held here, and armed after the commit, only when this instance holds
     * timeouts and the deadline is within the lookahead; one further out is left unheld, for the
     * instance whose poll finds it near (memory does not grow with what is pending far ahead).
     */
    private DurableTimeout upsert(String task, String key, Instant deadline, String text) {
        DurableTimeout timeout = new DurableTimeout(task, key, deadline, text, 1);
        String captured = data.capture();
        long deadlineMillis = deadline.toEpochMilli();
        boolean hold = armed.isHolding()
                && deadlineMillis
                        <= settings.clock().millis() + settings.lookahead().toMillis();
        context.transactions()
                .joinedOrAutoCommitThenOnCommit(
                        () -> context.table()
                                .upsert(task, key, deadlineMillis, hold ? settings.instanceId() : null, text, captured),
                        version -> {
                            if (hold) {
                                // Memory keeps no data: the run reads it with the row it deletes.
                                armed.arm(new DurableTimeout(task, key, deadline), version, 0, deadlineMillis);
                            } else {
                                armed.forget(task, key, version); // an earlier version held here is not any more
                            }
                            context.listener().scheduled(task);
                        });
        return timeout;
    }

    /** Checks the task and key, then that {@code value}, the argument called {@code name}, is not null. */
    static void checkArguments(String task, String key, Object value, String name) {
        Objects.requireNonNull(task, "task must not be null");
        Objects.requireNonNull(key, "key must not be null");
        Objects.requireNonNull(value, () -> name + " must not be null");
        Names.checkTaskAndKey(task, key);
    }

    void checkKnown(String task) {
        if (!context.handlers().containsKey(task)) {
            throw new IllegalArgumentException("task \"" + task + "\" has no handler here; the known tasks are "
                    + context.handlers().keySet().stream().sorted().toList());
        }
    }
}
