package io.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

/**
 * The hand-off from producer threads to the worker: a lock-free stack through the handles' own
 * {@code link} field, so a push allocates nothing: one compare-and-set, retried only if another
 * thread changed the top meanwhile (rare for the new timeouts, striped by scheduling thread in
 * {@link HandOff}; the cancelled ones share a stack, where a lost race costs one retry). Many
 * threads push; only the worker takes, everything pushed so far in one exchange; any thread may take
 * a handle it cancelled back off the top ({@link #popIfTop}).
 *
 * <p>The worker may take in bounded portions ({@link #take(Consumer, int)}): a call visits at most
 * {@code limit} handles of the chain it took off the stack to put it in push order (the chain is
 * newest first, so the oldest is known only at its end), and hands over at most {@code limit} handles
 * once that is done. What it took off the stack and has not handed over yet waits, in push order,
 * before anything pushed since. So a burst of a million pushes between two looks costs the worker
 * many short calls, not one long one.
 *
 * <p>A push writes the node's link before the compare-and-set publishes the node, so whoever sees a
 * node sees its link, and the worker never waits for a producer, not even one preempted in the
 * middle of a push (a push that published the node first and wrote its link after would make the
 * worker spin until that producer runs again). {@link #BOTTOM} ends a chain.
 *
 * <p>The stack of new timeouts drops, as it takes them, the handles that ended before the worker
 * took them (cancelled or withdrawn: they need nothing from the worker). It must walk the chain once
 * anyway, to put it in push order, and that walk has already loaded each handle: so a timeout
 * cancelled before the worker took it costs the worker one visit, not two.
 */
final class TimeoutStack {

    private static final TimeoutHandle BOTTOM = new TimeoutHandle(null, null, 0, false);

    private static final VarHandle TOP;

    static {
        try {
            TOP = MethodHandles.lookup().findVarHandle(TimeoutStack.class, "top", TimeoutHandle.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Keeps the tops of stacks made one after another (the stripes of the new timeouts) on cache
     * lines of their own: 64 bytes of this object lie between one stack's top and the next's.
     */
    @SuppressWarnings("unused")
    private long pad0, pad1, pad2, pad3, pad4, pad5, pad6, pad7;

    /** The newest handle pushed, or null. Read directly, changed through {@link #TOP}. */
    private volatile TimeoutHandle top;
    /** Whether a take drops the handles no longer {@code PENDING} (the stack of new timeouts). */
    private final boolean dropEnded;
    /** Worker only: taken from the stack, in push order, not handed over yet. */
    private TimeoutHandle carried;
    /**
     * Worker only: the part of a taken chain not yet put in push order, newest first, ending at
     * {@link #BOTTOM}; null when there is none. Everything in it is older than {@link #reversed}.
     */
    private TimeoutHandle unreversed;
    /** Worker only: the newer part of that chain, already in push order (null-terminated). */
    private TimeoutHandle reversed;

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
        TimeoutHandle below;
        do {
            below = top;
            handle.linkPlain(below == null ? BOTTOM : below); // published by the compare-and-set
        } while (!TOP.compareAndSet(this, below, handle));
        return below == null;
    }

    /**
     * Takes {@code handle} back off the stack if it is still the top, as a timeout cancelled right
     * after it was scheduled (the call answered at once) is: the worker then never sees it. Any
     * thread; a handle that is not the top stays (a take drops it later, if this stack drops ended
     * handles).
     *
     * <p>Safe without a counter against ABA: a handle is pushed onto a stack once in its life, and a
     * take empties the stack, so while the top is {@code handle} it is on the stack, not taken, and
     * the link below it is the one its push wrote. The handle keeps that link: a worker walking the
     * stack for {@code upcoming} may be reading it.
     *
     * @return whether it was taken off
     */
    boolean popIfTop(TimeoutHandle handle) {
        if (top != handle) {
            return false;
        }
        TimeoutHandle below = handle.linkAcquire();
        return TOP.compareAndSet(this, handle, below == BOTTOM ? null : below);
    }

    /** Whether nothing waits: nothing pushed, nor left over from a bounded take (worker only). */
    boolean isEmpty() {
        return !isTaking() && top == null;
    }

    /**
     * Worker only: goes on with what it took earlier and has not handed over yet or, if there is
     * nothing, takes every handle pushed so far off the stack in one exchange ({@link #grab}); then
     * {@link #handOver}. Never takes off the stack twice in one call, so a call is one atomic take.
     *
     * @return the work done, as {@link #handOver}; 0 if there was nothing at all
     */
    int take(Consumer<TimeoutHandle> action, int limit) {
        grab();
        return handOver(action, limit);
    }

    /** Worker only: whether it holds handles taken off the stack and not all handed over yet. */
    boolean isTaking() {
        return carried != null || unreversed != null;
    }

    /**
     * Worker only: unless it is still handing over an earlier take, takes every handle pushed so far
     * off the stack in one exchange, to hand over later ({@link #handOver}).
     *
     * @return whether it holds handles to hand over now (taken now or earlier)
     */
    boolean grab() {
        if (!isTaking() && top != null) { // a plain read first: most stripes are empty most of the time
            unreversed = (TimeoutHandle) TOP.getAndSet(this, null); // null: its only handle was taken back
        }
        return isTaking();
    }

    /**
     * Worker only: goes on with what it took off the stack ({@link #grab}) and has not handed over yet,
     * never taking more off it: visiting at most {@code limit} handles to put them in push order, then
     * handing over at most {@code limit}, oldest first, it leaves the rest for the next call. Each
     * handle's link is reset to null before it is handed over (so it may be pushed again, onto any
     * stack).
     *
     * @return the work done: handles visited to put them in order plus handles handed over; 0 if it
     *     held nothing (more than 0 even if every handle it met was dropped)
     */
    int handOver(Consumer<TimeoutHandle> action, int limit) {
        int work = 0;
        if (unreversed != null) {
            work = putInPushOrder(limit);
            if (unreversed != null) {
                return work; // the oldest is still to be reached: nothing can be handed over yet
            }
            if (carried == null) {
                return work; // every handle it met was dropped (work > 0: it met some)
            }
        }
        for (int taken = 0; taken < limit && carried != null; taken++) {
            TimeoutHandle node = carried;
            carried = node.linkAcquire();
            node.linkRelease(null);
            action.accept(node);
            work++;
        }
        return work;
    }

    /**
     * Worker only: hands over, oldest first, every handle taken earlier and not handed over yet, and
     * then every handle pushed so far (one more exchange), each link reset to null before the call.
     *
     * @return whether there was anything
     */
    boolean takeAll(Consumer<TimeoutHandle> action) {
        boolean any = handOver(action, Integer.MAX_VALUE) > 0; // left over from bounded takes, all of it
        return (take(action, Integer.MAX_VALUE) > 0) | any;
    }

    /**
     * Moves at most {@code limit} handles from {@link #unreversed} to the front of {@link #reversed},
     * reusing the links, and drops the ended handles if this stack does ({@link #dropEnded}: their
     * links are reset to null). Once the bottom is reached the chain is in push order: it becomes
     * {@link #carried}.
     *
     * @return how many handles it visited
     */
    private int putInPushOrder(int limit) {
        TimeoutHandle node = unreversed;
        TimeoutHandle done = reversed;
        int visited = 0;
        for (; node != BOTTOM; visited++) {
            if (visited == limit) {
                unreversed = node;
                reversed = done;
                return visited;
            }
            TimeoutHandle below = node.linkAcquire();
            if (dropEnded && node.state() != TimeoutHandle.PENDING) {
                node.linkRelease(null);
            } else {
                node.linkRelease(done);
                done = node;
            }
            node = below;
        }
        unreversed = null;
        reversed = null;
        carried = done;
        return visited;
    }

    /** Worker only: visits the handles not handed over yet (taken or still on the stack), without taking them. */
    void forEach(Consumer<TimeoutHandle> action) {
        for (TimeoutHandle node = carried; node != null; node = node.linkAcquire()) {
            action.accept(node);
        }
        for (TimeoutHandle node = reversed; node != null; node = node.linkAcquire()) {
            action.accept(node);
        }
        forEachInChain(unreversed, action);
        forEachInChain(top, action);
    }

    /** A chain as pushed: newest first, to {@link #BOTTOM}; null for none. */
    private static void forEachInChain(TimeoutHandle node, Consumer<TimeoutHandle> action) {
        for (; node != null && node != BOTTOM; node = node.linkAcquire()) {
            action.accept(node);
        }
    }
}
