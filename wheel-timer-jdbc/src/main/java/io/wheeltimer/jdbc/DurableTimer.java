package io.wheeltimer.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Timeouts kept in a database table: they survive restarts, crashes and deploys, and with several
 * instances on one database each one fires once, from the wheel of the instance that holds it.
 *
 * <p>A timeout is named by its task (the {@link DurableTimerTask @DurableTimerTask} handler that
 * runs it) and a key (what it is about, for example an order id); there is at most one pending
 * timeout per task and key. Task and key are 1 to 200 characters, not blank, and compare exactly.
 * Deadlines are kept in milliseconds.
 *
 * <p>Every method throws {@link NullPointerException} for a null argument,
 * {@link IllegalArgumentException} for a blank or too long task or key (naming it and what is
 * allowed), and Spring's {@link org.springframework.dao.DataAccessException} when the database
 * cannot be reached.
 */
public interface DurableTimer {

    /**
     * Schedules the timeout of {@code task} for {@code key} to fire after {@code delay}, or moves the
     * deadline of the pending one. The deadline is now plus {@code delay}, truncated to
     * milliseconds; a delay of zero or less is due at once.
     *
     * @throws IllegalArgumentException also if no handler handles {@code task}, or {@code delay} is
     *     too long to represent
     */
    DurableTimeout schedule(String task, String key, Duration delay);

    /**
     * Schedules the timeout of {@code task} for {@code key} to fire at {@code deadline}, or moves the
     * deadline of the pending one. A deadline in the past is due at once; it is kept as given,
     * truncated to milliseconds, so that the lateness reported is honest.
     *
     * @throws IllegalArgumentException also if no handler handles {@code task}, or {@code deadline}
     *     is beyond the range of epoch milliseconds
     */
    DurableTimeout schedule(String task, String key, Instant deadline);

    /**
     * Removes the pending timeout of {@code task} for {@code key}.
     *
     * @return {@code true} only when a pending timeout was removed; {@code false} when none was
     *     pending (never scheduled, already run, already cancelled, or given up)
     */
    boolean cancel(String task, String key);

    /** The pending timeout of {@code task} for {@code key}, if any. */
    Optional<DurableTimeout> find(String task, String key);
}
