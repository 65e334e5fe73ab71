package io.wheeltimer.jdbc;

import java.time.Duration;

/**
 * Hears what a {@link JdbcDurableTimer} does, for meters and logs. Called on the thread that did it;
 * must be quick and must not throw.
 */
public interface DurableTimerListener {

    /** A timeout of {@code task} was scheduled or rescheduled (after the commit). */
    default void scheduled(String task) {}

    /** A pending timeout of {@code task} was cancelled (after the commit). */
    default void cancelled(String task) {}

    /** The handler of {@code timeout} is about to run, {@code lateness} after the deadline. */
    default void started(DurableTimeout timeout, Duration lateness) {}

    /** The handler of a timeout of {@code task} ran and its transaction committed. */
    default void fired(String task) {}

    /** The handler of a timeout of {@code task} threw; the timeout will run again later. */
    default void retried(String task, Throwable error) {}

    /** The handler of a timeout of {@code task} threw for the last allowed time: it is given up. */
    default void failed(String task, Throwable error) {}
}
