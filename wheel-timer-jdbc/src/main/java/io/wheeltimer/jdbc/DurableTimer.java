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
 * timeout per task and key.
 */
public interface DurableTimer {

    /**
     * Schedules the timeout of {@code task} for {@code key} to fire after {@code delay}, or moves the
     * deadline of the pending one. A delay of zero or less is due at once.
     */
    DurableTimeout schedule(String task, String key, Duration delay);

    /**
     * Schedules the timeout of {@code task} for {@code key} to fire at {@code deadline}, or moves the
     * deadline of the pending one. A deadline in the past is due at once.
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
