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
 *
 * <p>The stack of new timeouts drops, as it takes them, the handles that ended before the worker
 * took them (cancelled or withdrawn: they need nothing from the worker). It must walk the chain once
 * anyway, to put it in push order, and that walk has already loaded each handle: so a timeout
 * cancelled before the worker took it costs the worker one visit, not two.
 */
final class TimeoutStack {

    private static final TimeoutHandle BOTTOM = new TimeoutHandle(null, null, 0);

    private final AtomicReference<TimeoutHandle> top = new AtomicReference<>();
    /** Whether a take drops the handles no longer {@code PENDING} (the stack of new timeouts). */
    private final boolean dropEnded;
    /** Worker only: taken from the stack but not handed over yet (a bounded take), in push order. */
    private TimeoutHandle carried;

    /** A stack that hands over every handle pushed. */
    TimeoutStack() {
        this(false);
    }

    /**
     * @param dropEnded whether a take skips, without handing them over, the handles whose state is no
     *     longer {@code PENDING}: for the new timeouts, where such a handle was cancelled or withdrawn
     *     before the worker took it
     */
    TimeoutStack(boolean dropEnded) {
        this.dropEnded = dropEnded;
    }

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
            TimeoutHandle chain = top.getAndSet(null);
            if (chain == null) {
                return false;
            }
            carried = inPushOrder(chain); // null if every handle was dropped: still "there was something"
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

    /**
     * Reverses a chain taken off the stack into push order (null-terminated), reusing the links, and
     * drops the ended handles if this stack does ({@link #dropEnded}); their links are reset to null.
     */
    private TimeoutHandle inPushOrder(TimeoutHandle node) {
        TimeoutHandle reversed = null;
        while (node != BOTTOM) {
            TimeoutHandle below = awaitLink(node);
            if (dropEnded && node.state() != TimeoutHandle.PENDING) {
                node.linkRelease(null);
            } else {
                node.linkRelease(reversed);
                reversed = node;
            }
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
