package io.wheeltimer;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The settings of a {@link HashedWheelTimer}, checked in the order Netty checks them (so that the
 * same bad arguments get the same exception) and normalized: the wheel size rounded up to a power
 * of two, a tick shorter than 1 ms raised to 1 ms with one WARN.
 *
 * @param tickNanos the tick, at least 1 ms
 * @param ticksPerWheel a power of two from 1 to 2^30
 */
record WheelSettings(long tickNanos, int ticksPerWheel) {

    static final long MIN_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    static WheelSettings check(
            ThreadFactory threadFactory,
            long tickDuration,
            TimeUnit unit,
            int ticksPerWheel,
            Executor taskExecutor,
            Ticker ticker) {
        Objects.requireNonNull(threadFactory, "threadFactory must not be null");
        Objects.requireNonNull(unit, "unit must not be null");
        if (tickDuration <= 0) {
            throw new IllegalArgumentException("tickDuration must be > 0, was " + tickDuration + " "
                    + unit.name().toLowerCase());
        }
        if (ticksPerWheel <= 0 || ticksPerWheel > HashedWheelTimer.MAX_TICKS_PER_WHEEL) {
            throw new IllegalArgumentException("ticksPerWheel must be from 1 to 2^30 ("
                    + HashedWheelTimer.MAX_TICKS_PER_WHEEL + "), was " + ticksPerWheel);
        }
        Objects.requireNonNull(taskExecutor, "taskExecutor must not be null");
        Objects.requireNonNull(ticker, "ticker must not be null");
        int wheelSize = ticksPerWheel == 1 ? 1 : Integer.highestOneBit(ticksPerWheel - 1) << 1;
        long nanos = unit.toNanos(tickDuration);
        if (nanos >= Long.MAX_VALUE / wheelSize) {
            throw new IllegalArgumentException(String.format(
                    "tickDuration * ticksPerWheel must fit in a long of nanoseconds: tickDuration %d ns"
                            + " (expected: < %d ns with %d ticks per wheel)",
                    nanos, Long.MAX_VALUE / wheelSize, wheelSize));
        }
        if (nanos < MIN_TICK_NANOS) {
            TimerRuntime.LOG.log(
                    System.Logger.Level.WARNING,
                    "Configured tickDuration " + nanos + " ns is shorter than 1 ms; using 1 ms");
            nanos = MIN_TICK_NANOS;
        }
        return new WheelSettings(nanos, wheelSize);
    }

    /** The worker's thread from {@code threadFactory}, renamed to {@code name} unless null. */
    static Thread workerThread(ThreadFactory threadFactory, Runnable worker, String name) {
        Thread thread = threadFactory.newThread(worker);
        if (thread == null) {
            throw new IllegalArgumentException("threadFactory returned no thread: " + threadFactory);
        }
        if (name != null) {
            thread.setName(name);
        }
        return thread;
    }
}
