package io.wheeltimer;

/**
 * The handle of a {@link TimerTask} scheduled by {@link Timer#newTimeout}. The same contract as
 * Netty's {@code io.netty.util.Timeout}. All methods are thread safe and cheap.
 */
public interface Timeout {

    /** The timer that created this handle. */
    Timer timer();

    /** The task this handle runs. */
    TimerTask task();

    /** Whether the task has been handed to its executor (its deadline passed). */
    boolean isExpired();

    /** Whether {@link #cancel()} (or {@link Timer#stop()}) cancelled this timeout before it ran. */
    boolean isCancelled();

    /**
     * Cancels the timeout so that its task never runs, and calls {@link TimerTask#cancelled}.
     * Costs a compare-and-set; the worker unlinks the timeout within one tick, and a timeout the
     * worker has not picked up yet costs it nothing.
     *
     * @return true only for the call that cancelled it; false if it already ran, was already
     *     cancelled, or the timer was stopped
     */
    boolean cancel();
}
