package io.wheeltimer;

import java.util.concurrent.locks.LockSupport;

/**
 * The time source of a {@link HashedWheelTimer}'s worker: it reads the time and it waits for it.
 * {@link #system()} (the default) is {@link System#nanoTime()} with {@link LockSupport} parking;
 * {@link io.wheeltimer.testing.ManualTicker} is a clock that moves only when a test says so.
 *
 * <p>Only {@link #nanoTime()} must be implemented. A ticker whose time does not follow the system
 * clock must also override the three waiting methods, which the timer calls on its worker thread
 * ({@code sleep}) and on any thread that needs the worker ({@code wake}).
 */
public interface Ticker {

    /**
     * Current time in nanoseconds, from an arbitrary origin; only differences between two readings
     * mean anything, and they may wrap around like {@link System#nanoTime()}'s.
     */
    long nanoTime();

    /**
     * Blocks the calling worker until {@link #nanoTime()} reaches {@code deadlineNanos}, or
     * {@link #wake} is called for it; may return earlier, for no reason. Returns at once if a
     * {@code wake} came since the last sleep.
     */
    default void sleepUntil(long deadlineNanos) {
        long nanos = deadlineNanos - nanoTime();
        if (nanos > 0) {
            LockSupport.parkNanos(this, nanos);
        }
    }

    /** Blocks the calling worker until {@link #wake} is called for it; may return earlier. */
    default void sleep() {
        LockSupport.park(this);
    }

    /**
     * Ends the current or the next sleep of {@code worker}. The timer also calls this once from a
     * new worker thread, before it reads the time for the first time, to introduce the worker.
     */
    default void wake(Thread worker) {
        LockSupport.unpark(worker);
    }

    /** The system clock: {@link System#nanoTime()}. */
    static Ticker system() {
        return SystemTicker.INSTANCE;
    }
}
