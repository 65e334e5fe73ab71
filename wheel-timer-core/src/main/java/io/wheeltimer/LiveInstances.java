package io.wheeltimer;

import io.wheeltimer.HashedWheelTimer.State;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The live {@link HashedWheelTimer}s of the JVM: counted, so that too many (each owns a thread)
 * log one error, and watched, so that one garbage-collected without {@code stop()} is reported as
 * a leak and uncounted.
 */
final class LiveInstances {

    private static final int LIMIT = 64;
    static final AtomicInteger COUNT = new AtomicInteger();
    static final AtomicBoolean WARNED = new AtomicBoolean();
    private static final Cleaner CLEANER = Cleaner.create();

    private LiveInstances() {}

    /**
     * Counts a new timer and watches it; the returned cleanable, cleaned on stop, unregisters it.
     *
     * @param state the timer's state: the leak check must reach neither the timer nor its runtime
     *     (which reaches the timer), or it would keep the timer alive
     */
    static Cleaner.Cleanable register(Object timer, AtomicReference<State> state, boolean reportLeak, String name) {
        int instances = COUNT.incrementAndGet();
        if (instances > LIMIT && WARNED.compareAndSet(false, true)) {
            TimerRuntime.LOG.log(
                    System.Logger.Level.ERROR,
                    "You are creating too many HashedWheelTimer instances (" + instances + " live)."
                            + " HashedWheelTimer is a shared resource that must be reused across the JVM,"
                            + " so that only a few instances are created.");
        }
        return CLEANER.register(timer, () -> {
            if (state.getAndSet(State.SHUTDOWN) != State.SHUTDOWN) {
                stopped();
                if (reportLeak) {
                    TimerRuntime.LOG.log(
                            System.Logger.Level.ERROR,
                            "LEAK: HashedWheelTimer {0} was garbage-collected without stop();"
                                    + " stop every timer you create",
                            name);
                }
            }
        });
    }

    /** A timer moved to {@code SHUTDOWN}: it no longer counts. */
    static void stopped() {
        COUNT.decrementAndGet();
    }
}
