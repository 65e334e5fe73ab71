package io.wheeltimer;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
        return newTimeout(task, FutureDeadline.nanos(delay), TimeUnit.NANOSECONDS);
    }

    /**
     * Gives {@code future} a deadline on this timer: {@link CompletableFuture#orTimeout} run on the
     * wheel instead of the JDK's single static delayer thread. Unless it completes first, the
     * future is completed exceptionally with a {@link TimeoutException} after {@code timeout}
     * (within one tick after it, as every timeout here). Its message names the limit
     * ({@code did not complete within PT2S}) and it prints as a {@code TimeoutException}; it has no
     * stack trace, which would show only the timer's thread. When the future completes first, its
     * timeout is cancelled at once, so nothing stays pending. A timeout of zero or less fires on the
     * next tick; a future that is already complete is returned as it is, without a timeout.
     *
     * <p>Costs one small object besides the timeout, and the dependent stage the
     * cancellation needs. If the timer is stopped while the deadline is pending, the deadline is
     * cancelled with the others and the future is left as it is.
     *
     * @param future the future to limit
     * @param timeout how long it may take, from now
     * @param <T> the future's result type
     * @return {@code future} itself
     * @throws NullPointerException if {@code future} or {@code timeout} is null
     * @throws IllegalStateException if the timer was stopped (the future is left untouched: a
     *         deadline that silently never fires would be worse)
     * @throws RejectedExecutionException if the timer already holds its maximum of pending timeouts
     */
    default <T> CompletableFuture<T> orTimeout(CompletableFuture<T> future, Duration timeout) {
        return FutureDeadline.limit(this, future, FutureDeadline.FAIL, timeout);
    }

    /**
     * Completes {@code future} with {@code value} after {@code timeout} unless it completes first:
     * {@link CompletableFuture#completeOnTimeout} run on the wheel. Otherwise as
     * {@link #orTimeout(CompletableFuture, Duration)}: the same future is returned, its timeout is
     * cancelled at once when it completes first, a timeout of zero or less fires on the next tick.
     *
     * @param future the future to limit
     * @param value the result to complete it with on timeout; may be null, as in the JDK
     * @param timeout how long it may take, from now
     * @param <T> the future's result type
     * @return {@code future} itself
     * @throws NullPointerException if {@code future} or {@code timeout} is null
     * @throws IllegalStateException if the timer was stopped (the future is left untouched)
     * @throws RejectedExecutionException if the timer already holds its maximum of pending timeouts
     */
    default <T> CompletableFuture<T> completeOnTimeout(CompletableFuture<T> future, T value, Duration timeout) {
        return FutureDeadline.limit(this, future, value, timeout);
    }

    /**
     * Stops the timer: releases its thread and cancels every timeout that has not run.
     *
     * @return the timeouts that never ran, each now cancelled; empty on a second call
     * @throws IllegalStateException if called from a task running on this timer's worker thread
     */
    Set<Timeout> stop();
}
