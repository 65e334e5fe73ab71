package io.wheeltimer;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counts of a timer's timeouts, which {@link HashedWheelTimer#stats()} reads: each goes only
 * up, and pending is derived from three of them, so no count is ever kept twice.
 *
 * <p>Thread safe: producers and cancellers add concurrently; {@link #expired} is the worker's alone.
 */
final class Counters {

    final LongAdder scheduled = new LongAdder();
    final LongAdder cancelled = new LongAdder();
    final LongAdder rejected = new LongAdder();
    final LongAdder failed = new LongAdder();
    /** Written by the worker alone, per timeout, just before its task starts. */
    private final AtomicLong expired = new AtomicLong();

    /**
     * Worker thread: one more timeout expired. One ordered store of a line the worker alone writes;
     * the executor's hand-off publishes it to the task's thread.
     */
    void expiredOne() {
        expired.lazySet(expired.get() + 1);
    }

    long expired() {
        return expired.get();
    }

    /** One snapshot: pending from the three counts, the scheduled one read last (see {@link #pending(long, long, long)}). */
    TimerStats snapshot(long tick, Duration tickLag, HashedWheelTimer.State state) {
        long expiredCount = expired.get();
        long cancelledCount = cancelled.sum();
        long scheduledCount = scheduled.sum();
        return new TimerStats(
                pending(scheduledCount, expiredCount, cancelledCount),
                scheduledCount,
                expiredCount,
                cancelledCount,
                rejected.sum(),
                failed.sum(),
                tick,
                tickLag,
                state);
    }

    /**
     * Pending timeouts: scheduled, and neither started (or handed to the task executor) nor
     * cancelled. Exact whenever no call is in flight.
     */
    long pending() {
        long expiredCount = expired.get();
        long cancelledCount = cancelled.sum();
        return pending(scheduled.sum(), expiredCount, cancelledCount);
    }

    /**
     * Pending from the three counts, the scheduled one read last: a timeout is counted as scheduled
     * just after it is handed off, so in flight the worker may count it as expired or cancelled
     * first; pending is then held at zero for that instant.
     */
    static long pending(long scheduled, long expired, long cancelled) {
        return Math.max(scheduled - expired - cancelled, 0);
    }
}
