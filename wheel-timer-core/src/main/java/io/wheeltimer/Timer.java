package io.wheeltimer;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Schedules {@link TimerTask}s to run once after a delay. The same contract as Netty's
 * {@code io.netty.util.Timer}, plus a {@link Duration} overload.
 */
public interface Timer {

    /**
     * Schedules {@code task} to run once after {@code delay}. A delay of zero or less runs on the
     * next tick; a delay too long to represent never runs (but can be cancelled).
     *
     * @param task what to run
     * @param delay how long from now, in {@code unit}s
     * @param unit the unit of {@code delay}
     * @return the handle, to cancel the timeout or ask about it
     * @throws NullPointerException if {@code task} or {@code unit} is null
     * @throws IllegalStateException if the timer was stopped
     * @throws RejectedExecutionException if the timer already holds its maximum of pending timeouts
     */
    Timeout newTimeout(TimerTask task, long delay, TimeUnit unit);

    /**
     * Schedules {@code task} to run once after {@code delay}; see
     * {@link #newTimeout(TimerTask, long, TimeUnit)}. Delays beyond the range of a long in
     * nanoseconds (about 292 years) are treated as never.
     *
     * @param task what to run
     * @param delay how long from now
     * @return the handle, to cancel the timeout or ask about it
     * @throws NullPointerException if {@code task} or {@code delay} is null
     */
    default Timeout newTimeout(TimerTask task, Duration delay) {
        Objects.requireNonNull(delay, "delay must not be null");
        long nanos;
        try {
            nanos = delay.toNanos();
        } catch (ArithmeticException tooLong) {
            nanos = delay.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return newTimeout(task, nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Stops the timer: releases its thread and cancels every timeout that has not run.
     *
     * @return the timeouts that never ran, each now cancelled; empty on a second call
     * @throws IllegalStateException if called from a task running on this timer's worker thread
     */
    Set<Timeout> stop();
}
