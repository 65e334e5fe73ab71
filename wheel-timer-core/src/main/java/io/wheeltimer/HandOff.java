package io.wheeltimer;

import java.util.function.Consumer;

/**
 * The hand-off from producers and cancellers to the worker, and the wake-up protocol: producers
 * push new and cancelled timeouts onto lock-free stacks ({@link TimeoutStack}) and wake the worker
 * only when it would otherwise sleep past what they handed off; the worker takes them in bounded
 * portions each round and publishes when it sleeps until, and how far it got.
 *
 * <p>Thread safe: producers and cancellers call it concurrently with the worker; the methods
 * marked "worker thread" are the worker's alone.
 */
final class HandOff {

    /** {@link #wakeAtNanos} while the worker runs: it looks at the hand-off stacks before it sleeps. */
    static final long AWAKE = Long.MIN_VALUE;
    /** {@link #wakeAtNanos} while the worker sleeps with no deadline. */
    static final long IDLE = Long.MAX_VALUE;

    /** Stripes of the new timeouts (a power of two). */
    static final int STRIPES = 8;
    /** The stripe index is the top bits of a 64-bit hash: this many. */
    private static final int STRIPE_BITS = Integer.numberOfTrailingZeros(STRIPES);

    private final Ticker ticker;
    private final long tickNanos;
    private final Lifecycle lifecycle;

    /**
     * The new timeouts, striped by the scheduling thread (one stripe per thread, so a thread's own
     * timeouts stay in the order it scheduled them): producers on different threads do not contend
     * for one top, and a thread that cancels what it just scheduled finds it on top of its stripe
     * and takes it back. Each drops, when taken, what was cancelled or withdrawn before the worker
     * took it.
     */
    private final TimeoutStack[] newTimeouts = new TimeoutStack[STRIPES];
    /** Worker only: the stripe the next take starts at, so that a busy stripe cannot starve the others. */
    private int firstStripe;

    /** Timeouts cancelled after the worker took them into the wheel: it unlinks them. */
    final TimeoutStack cancelledTimeouts = new TimeoutStack();
    /** Time since start at which the sleeping worker wakes; {@link #AWAKE} or {@link #IDLE}. */
    private volatile long wakeAtNanos = AWAKE;
    /** Time since start of the work the worker is on or sleeps until ({@link #IDLE}: none). */
    private volatile long dueAtNanos = IDLE;

    private volatile long publishedTick;

    HandOff(Ticker ticker, long tickNanos, Lifecycle lifecycle) {
        this.ticker = ticker;
        this.tickNanos = tickNanos;
        this.lifecycle = lifecycle;
        for (int i = 0; i < STRIPES; i++) {
            newTimeouts[i] = new TimeoutStack(true);
        }
    }

    /**
     * Pushes a new timeout onto this thread's stripe.
     *
     * @return whether the stripe was empty
     */
    boolean push(TimeoutHandle handle) {
        return ownStripe().push(handle);
    }

    /**
     * After {@link #push}, once the timeout is surely accepted: wakes the worker if it would sleep
     * past the new deadline, or long past the next tick with a first timeout waiting on the stripe.
     */
    void wakeForNew(long deadlineNanos, long nowNanos, boolean stripeWasEmpty) {
        long wakeNanos = wakeAtNanos; // AWAKE once the worker has ended: no wake then
        if (wakeNanos != AWAKE
                && (deadlineNanos <= wakeNanos - tickNanos || stripeWasEmpty && wakeNanos - nowNanos > tickNanos)) {
            ticker.wake(lifecycle.workerThread());
        }
    }

    /**
     * A cancel won: a timeout not taken yet is taken back if it is still the newest of this
     * thread's stripe (it scheduled it just now), so that the worker never sees it; one in the
     * wheel is handed to the worker to unlink, within a tick.
     */
    void cancelled(TimeoutHandle handle, boolean inWheel) {
        if (!inWheel) {
            ownStripe().popIfTop(handle); // on any other stripe this fails
        } else if (cancelledTimeouts.push(handle)) {
            // First cancel since the worker last looked: make sure it looks within a tick.
            long wakeNanos = wakeAtNanos;
            if (wakeNanos != AWAKE && wakeNanos - lifecycle.elapsedNanos() > tickNanos) {
                ticker.wake(lifecycle.workerThread());
            }
        }
    }

    /** The stripe of the new timeouts that this thread pushes to. */
    private TimeoutStack ownStripe() {
        long id = Thread.currentThread().getId();
        return newTimeouts[(int) ((id * 0x9E3779B97F4A7C15L) >>> (Long.SIZE - STRIPE_BITS)) & (STRIPES - 1)];
    }

    /**
     * Worker thread: hands over new timeouts, about {@code limit} work in all (see {@link
     * TimeoutStack#handOver}), starting at another stripe each time. Unless a take is still being
     * handed over ({@link #takingNew}), it first takes every stripe off at once: one snapshot, so
     * that once it is handed over entirely, everything scheduled before the worker read the clock for
     * the round that took it is in the wheel.
     *
     * @return whether there was anything
     */
    boolean takeNew(Consumer<TimeoutHandle> action, int limit) {
        boolean any = false;
        if (!takingNew()) {
            for (TimeoutStack stripe : newTimeouts) {
                any |= stripe.grab();
            }
        }
        int budget = limit;
        int first = firstStripe++;
        for (int k = 0; k < STRIPES && budget > 0; k++) {
            int work = newTimeouts[(first + k) & (STRIPES - 1)].handOver(action, budget);
            any |= work > 0;
            budget -= work;
        }
        return any;
    }

    /** Worker thread: whether new timeouts it took off the stripes are not all handed over yet. */
    boolean takingNew() {
        for (TimeoutStack stripe : newTimeouts) {
            if (stripe.isTaking()) {
                return true;
            }
        }
        return false;
    }

    /** Worker thread: hands over at most {@code limit} timeouts cancelled in the wheel. */
    boolean takeCancelled(Consumer<TimeoutHandle> action, int limit) {
        return cancelledTimeouts.take(action, limit) > 0;
    }

    /** Whether new timeouts wait to be taken (worker thread; tests read it while the worker is held). */
    boolean hasNewTimeouts() {
        for (TimeoutStack stripe : newTimeouts) {
            if (!stripe.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** Worker thread: whether new or cancelled timeouts were handed off since the worker last looked. */
    boolean hasTimeouts() {
        return hasNewTimeouts() || !cancelledTimeouts.isEmpty();
    }

    /** Worker thread: visits the new timeouts not taken yet, for {@code upcoming}. */
    void forEachNotTaken(Consumer<TimeoutHandle> action) {
        for (TimeoutStack stripe : newTimeouts) {
            stripe.forEach(action);
        }
    }

    /** Worker thread, on stop: hands every new timeout still waiting to {@code cancel}, drops the cancelled. */
    void drain(Consumer<TimeoutHandle> cancel) {
        for (TimeoutStack stripe : newTimeouts) {
            stripe.takeAll(cancel);
        }
        cancelledTimeouts.takeAll(handle -> {});
    }

    /** Worker thread: it sleeps until {@code wakeNanos} (time since start, or {@link #IDLE}); producers read it. */
    void sleepingUntil(long wakeNanos) {
        wakeAtNanos = wakeNanos;
    }

    /** Worker thread: it is awake, and looks at the hand-offs before it sleeps again. */
    void awake() {
        wakeAtNanos = AWAKE;
    }

    /** Worker thread: the tick it has advanced to, for {@link #tick()}. */
    void publishTick(long tick) {
        publishedTick = tick;
    }

    /** Worker thread: time since start of the work it is on or sleeps until ({@link #IDLE}: none). */
    void dueAt(long dueNanos) {
        dueAtNanos = dueNanos;
    }

    /** The tick the worker has advanced to. */
    long tick() {
        return publishedTick;
    }

    /** How late the worker is on the work it is on or should have woken for; zero while it is not running. */
    long lagNanos() {
        long dueNanos = dueAtNanos;
        if (dueNanos == IDLE || !lifecycle.isActive()) {
            return 0;
        }
        return Math.max(lifecycle.elapsedNanos() - dueNanos, 0);
    }
}
