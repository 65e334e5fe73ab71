package io.wheeltimer;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The hand-off from producer threads to the worker: a lock-free stack through the handles' own
 * {@code link} field, so a push allocates nothing and never retries (one atomic exchange). Many
 * threads push; only the worker takes, and it takes everything at once.
 *
 * <p>The worker may take in bounded portions ({@link #takeAll(Consumer, int)}); what it took off the
 * stack and has not handed over yet waits in push order, before anything pushed since.
 *
 * <p>A pushed node is published by the exchange before its link is written, so a taker may briefly
 * see a null link; it waits for it. {@link #BOTTOM} ends a chain, so null always means "not yet".
 */
final class TimeoutStack {

    private static final TimeoutHandle BOTTOM = new TimeoutHandle(null, null, 0);

    private final AtomicReference<TimeoutHandle> top = new AtomicReference<>();
    /** Worker only: taken from the stack but not handed over yet (a bounded take), in push order. */
    private TimeoutHandle carried;

    /**
     * Pushes {@code handle}, whose link must be null.
     *
     * @return true if the stack was empty
     */
    boolean push(TimeoutHandle handle) {
        TimeoutHandle below = top.getAndSet(handle);
        handle.linkRelease(below == null ? BOTTOM : below);
        return below == null;
    }

    /** Whether nothing waits: nothing pushed, nor left over from a bounded take (worker only). */
    boolean isEmpty() {
        return carried == null && top.get() == null;
    }

    /**
     * Worker only: hands over, oldest first, at most {@code limit} of the handles taken earlier and
     * not handed over yet or, if there are none, of those pushed so far (taken off the stack in one
     * exchange); the rest waits for the next call. Never takes off the stack twice in one call, so
     * a call is one atomic take.
     *
     * @return whether there was anything
     */
    boolean takeAll(Consumer<TimeoutHandle> action, int limit) {
        if (carried == null) {
            carried = takeChain();
            if (carried == null) {
                return false;
            }
        }
        for (int taken = 0; taken < limit && carried != null; taken++) {
            TimeoutHandle node = carried;
            carried = node.linkAcquire();
            node.linkRelease(null);
            action.accept(node);
        }
        return true;
    }

    /**
     * Worker only: takes every handle pushed so far and hands each to {@code action} oldest first,
     * its link reset to null before the call (so the handle may be pushed again, onto any stack).
     *
     * @return whether there was anything
     */
    boolean takeAll(Consumer<TimeoutHandle> action) {
        boolean any = carried != null && takeAll(action, Integer.MAX_VALUE); // left over from a bounded take
        return takeAll(action, Integer.MAX_VALUE) | any;
    }

    /** Takes every handle pushed so far, as a chain in push order (null-terminated), or null. */
    private TimeoutHandle takeChain() {
        TimeoutHandle node = top.getAndSet(null);
        if (node == null) {
            return null;
        }
        // Reverse the chain into push order, reusing the links.
        TimeoutHandle reversed = null;
        while (node != BOTTOM) {
            TimeoutHandle below = awaitLink(node);
            node.linkRelease(reversed);
            reversed = node;
            node = below;
        }
        return reversed;
    }

    /** Worker only: visits the handles still on the stack, newest first, without taking them. */
    void forEach(Consumer<TimeoutHandle> action) {
        for (TimeoutHandle node = carried; node != null; node = node.linkAcquire()) {
            action.accept(node);
        }
        for (TimeoutHandle node = top.get(); node != null && node != BOTTOM; node = awaitLink(node)) {
            action.accept(node);
        }
    }

    private static TimeoutHandle awaitLink(TimeoutHandle node) {
        TimeoutHandle link;
        while ((link = node.linkAcquire()) == null) {
            Thread.onSpinWait();
        }
        return link;
    }
}
