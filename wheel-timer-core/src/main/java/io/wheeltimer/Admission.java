package io.wheeltimer;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What lets a new timeout in: the limit of pending timeouts, the lazy start of the worker, the
 * deadline measured from the start, and the hand-off that publishes it to the worker, refused if a
 * stop raced it. A timeout counted here is released exactly once, when it leaves the pending state.
 *
 * <p>Thread safe: producers call it concurrently.
 */
final class Admission {

    private final Lifecycle lifecycle;
    private final HandOff handOff;
    private final Counters counters;
    private final long maxPendingTimeouts;
    /** Pending count for the {@code maxPendingTimeouts} limit; maintained only when there is one. */
    private final AtomicLong admitted;

    /** @param maxPendingTimeouts 0 or less for no limit */
    Admission(Lifecycle lifecycle, HandOff handOff, Counters counters, long maxPendingTimeouts) {
        this.lifecycle = lifecycle;
        this.handOff = handOff;
        this.counters = counters;
        this.maxPendingTimeouts = maxPendingTimeouts;
        this.admitted = maxPendingTimeouts > 0 ? new AtomicLong() : null;
    }

    /**
     * Admits one more timeout (a counted one against the maximum) and starts the worker; {@link
     * #publish} must follow.
     *
     * @return the time now, in nanoseconds since the start
     */
    long admit(boolean counted) {
        if (admitted != null && counted) {
            long pending = admitted.incrementAndGet();
            if (pending > maxPendingTimeouts) {
                admitted.decrementAndGet();
                counters.rejected.increment();
                throw new RejectedExecutionException("Number of pending timeouts (" + pending
                        + ") is greater than or equal to maximum allowed pending timeouts ("
                        + maxPendingTimeouts + ")");
            }
        }
        try {
            lifecycle.start();
        } catch (RuntimeException | Error e) {
            release(counted);
            throw e;
        }
        return lifecycle.elapsedNanos();
    }

    /** As given: 0 or less for no limit. */
    long maxPendingTimeouts() {
        return maxPendingTimeouts;
    }

    /** The deadline of a delay from {@code nowNanos}; a delay <= 0 runs on the next tick. */
    static long deadlineNanos(long nowNanos, long delayNanos) {
        // 1 ns from now is due at the next boundary.
        return Lifecycle.saturatedAdd(nowNanos, delayNanos <= 0 ? 1 : delayNanos);
    }

    /** Hands a timeout, admitted at {@code nowNanos}, to the worker. */
    <H extends TimeoutHandle> H publish(H handle, long nowNanos) {
        boolean stripeWasEmpty = handOff.push(handle);
        // If a stop raced this call, either the worker took the handle (then it fires within the
        // grace period or is in the set stop() returns) or it never will: then withdraw it, so
        // nothing is lost.
        if (!lifecycle.isAccepting() && handle.compareAndSetState(TimeoutHandle.PENDING, TimeoutHandle.WITHDRAWN)) {
            release(handle.counted);
            throw new IllegalStateException(lifecycle.refusal());
        }
        if (handle.counted) {
            // Counted once it is surely accepted, so that the count never goes down.
            counters.scheduled.increment();
        }
        handOff.wakeForNew(handle.deadlineNanos, nowNanos, stripeWasEmpty);
        return handle;
    }

    /** A timeout left the pending state (cancelled, expired or withdrawn). */
    void release(boolean counted) {
        if (admitted != null && counted) {
            admitted.decrementAndGet();
        }
    }
}
