package io.wheeltimer.spring;

import io.wheeltimer.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link WheelTimeout @WheelTimeout} calls that fired and wait for a thread of their executor,
 * per timer: a shutdown waits for them to start before it stops the timer, since a call that
 * finds its timer stopped never starts.
 */
final class HandedOverCalls {

    private final Map<Timer, AtomicInteger> waiting = new ConcurrentHashMap<>();

    void handedOver(Timer timer) {
        waiting.computeIfAbsent(timer, t -> new AtomicInteger()).incrementAndGet();
    }

    /** The call started, or will not: refused, or cancelled. */
    void done(Timer timer) {
        // Removed at zero, so that a stopped timer is not kept; a racing handedOver re-adds it.
        waiting.computeIfPresent(timer, (t, count) -> count.decrementAndGet() <= 0 ? null : count);
    }

    int waiting(Timer timer) {
        AtomicInteger count = waiting.get(timer);
        return count != null ? count.get() : 0;
    }
}
