package io.wheeltimer;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The hand-off from producer threads to the worker: a lock-free stack through the handles' own
 * {@code link} field, so a push allocates nothing and never retries (one atomic exchange). Many
 * threads push; only the worker takes, and it takes everything at once.
 *
 * <p>A pushed node is published by the exchange before its link is written, so a taker may briefly
 * see a null link; it waits for it. {@link #BOTTOM} ends a chain, so null always means "not yet".
 */
final class TimeoutStack {

    private static final TimeoutHandle BOTTOM = new TimeoutHandle(null, null, 0);

    private final AtomicReference<TimeoutHandle> top = new AtomicReference<>();

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

    boolean isEmpty() {
        return top.get() == null;
    }

    /**
     * Worker only: takes every handle pushed so far and hands each to {@code action} oldest first,
     * its link reset to null before the call (so the handle may be pushed again, onto any stack).
     *
     * @return whether there was anything
     */
    boolean takeAll(Consumer<TimeoutHandle> action) {
        TimeoutHandle node = top.getAndSet(null);
        if (node == null) {
            return false;
        }
        // Reverse the chain into push order, reusing the links.
        TimeoutHandle reversed = null;
        while (node != BOTTOM) {
            TimeoutHandle below = awaitLink(node);
            node.linkRelease(reversed);
            reversed = node;
            node = below;
        }
        while (reversed != null) {
            TimeoutHandle next = reversed.linkAcquire();
            reversed.linkRelease(null);
            action.accept(reversed);
            reversed = next;
        }
        return true;
    }

    /** Worker only: visits the handles still on the stack, newest first, without taking them. */
    void forEach(Consumer<TimeoutHandle> action) {
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
