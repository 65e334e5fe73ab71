package io.wheeltimer.spring.annotated;

import io.wheeltimer.Timer;
import io.wheeltimer.spring.WheelTimeout;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link WheelTimeout @WheelTimeout} calls that fired and wait for a thread of their executor,
 * per timer. A call that finds its timer stopped never starts (the context may be closed), unless
 * a shutdown keeps the timer's calls open: it stops the timer, waits for the calls that fired
 * before the stop to start, and then closes them.
 */
final class HandedOverCalls {

    private final Map<Timer, AtomicInteger> waiting = new ConcurrentHashMap<>();
    private final Set<Timer> keptOpen = ConcurrentHashMap.newKeySet();

    void handedOver(Timer timer) {
        waiting.computeIfAbsent(timer, t -> new AtomicInteger()).incrementAndGet();
    }

    /** The call started, or will not: refused, or cancelled. */
    void done(Timer timer) {
        // Removed at zero, so that a stopped timer is not kept; a racing handedOver re-adds it.
        waiting.computeIfPresent(timer, (t, count) -> count.decrementAndGet() <= 0 ? null : count);
    }

    /** Calls of {@code timer} that fired start though it stops, until {@link #close}. */
    void keepOpen(Timer timer) {
        keptOpen.add(timer);
    }

    /** From now on a call of {@code timer} that finds it stopped does not start. */
    void close(Timer timer) {
        keptOpen.remove(timer);
    }

    /**
     * Whether a fired call of {@code timer} must not start: the timer is stopped and no shutdown
     * waits for its calls. Read before the call stops counting as waiting, so that a shutdown that
     * sees it no longer waiting, and closes the calls, has let it run.
     */
    boolean mayNotStart(Timer timer) {
        return AnnotatedTimer.isStopped(timer) && !keptOpen.contains(timer);
    }

    int waiting(Timer timer) {
        AtomicInteger count = waiting.get(timer);
        return count != null ? count.get() : 0;
    }
}
