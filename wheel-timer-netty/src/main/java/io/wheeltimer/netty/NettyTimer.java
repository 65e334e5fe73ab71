package io.wheeltimer.netty;

import java.util.Objects;

/**
 * Netty's {@link io.netty.util.Timer} on a wheel-timer {@link io.wheeltimer.Timer}, for the clients
 * that take one (Lettuce's {@code ClientResources.builder().timer(..)}, AsyncHttpClient's
 * {@code setNettyTimer(..)}): their timeouts then run on a wheel the application already has,
 * parked when idle and counted by its meters, instead of on a {@code HashedWheelTimer} of their own
 * that ticks whether or not anything is pending.
 *
 * <p>A view's timeouts are Netty {@link io.netty.util.Timeout}s: {@code timer()} is the view,
 * {@code task()} the Netty task given, which receives that same timeout; {@code isExpired()},
 * {@code isCancelled()} and {@code cancel()} mean what they mean in Netty (a timeout is expired
 * once its task is about to start, and {@code cancel()} returns true only for the call that
 * cancelled a timeout whose task had not started). Tasks run where the wheel runs its own: on its
 * worker thread unless it was given a task executor, so a Netty task must be as short as on
 * Netty's timer.
 *
 * <p>A task's {@link io.netty.util.TimerTask#cancelled} is called as Netty's timer calls it: once
 * for the {@code cancel()} that won, after that call returned, on the timer's thread (here, where
 * the wheel runs its tasks); never for a timeout whose task ran. An exception it throws is logged
 * at WARNING and goes no further.
 *
 * <p>{@link io.netty.util.Timer#stop()} stops the view only: it cancels and returns the timeouts
 * made through that view whose task never started, without calling their tasks' {@code
 * cancelled} (nor does Netty's own {@code stop()}), and from then on the view's {@code newTimeout}
 * throws {@link IllegalStateException}. The shared timer, and every other view of it, keep
 * running; stopping the shared timer is its owner's job, and cancels the views' timeouts with the
 * rest, likewise untold. Costs per timeout, besides the wheel's own: one small object (the Netty
 * timeout, which is also the wheel's task) and an entry in the view's concurrent set of timeouts
 * not yet run; a cancel costs one more wheel task, the notice, only if the task overrides
 * {@code cancelled}. The notice is not one of the shared timer's timeouts: a {@code
 * HashedWheelTimer}'s counts, limit and {@code upcoming} hold only the timeouts made on it.
 */
public final class NettyTimer {

    private NettyTimer() {}

    /**
     * A new view of {@code timer} as a Netty timer; each call makes an independent view, with its
     * own {@code stop()}.
     *
     * @param timer the timer the view's timeouts run on
     * @return the view
     * @throws NullPointerException if {@code timer} is null
     */
    public static io.netty.util.Timer of(io.wheeltimer.Timer timer) {
        Objects.requireNonNull(timer, "timer must not be null");
        return new NettyTimerView(timer);
    }
}
