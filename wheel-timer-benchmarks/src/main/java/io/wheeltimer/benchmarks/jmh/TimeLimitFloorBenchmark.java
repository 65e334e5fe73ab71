package io.wheeltimer.benchmarks.jmh;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * What bounds the limit-then-complete pattern of {@link TimeLimitBenchmark}, step by step: the same
 * pattern with only part of a deadline's work, beside the real contenders in the same run. None of
 * the partial steps is a usable limiter; each is the least that any limiter which cancels its
 * deadline the moment the future completes must do up to that point.
 *
 * <ul>
 *   <li>{@link Step#FUTURE}: the new future, the dependent stage that learns it completed
 *       ({@code handle}), and its completion. {@code CompletableFuture.orTimeout} pays this too
 *       (with {@code whenComplete}).
 *   <li>{@link Step#CLOCK}: also reads the clock, once, for the deadline.
 *   <li>{@link Step#HAND_OFF}: also puts a deadline object where a worker could take it, and takes
 *       it back when the future completes: one compare-and-set onto a stack (one per benchmark
 *       thread, as the timer stripes them by scheduling thread) and one off it. No state change
 *       that settles a race with expiry, no counts, no worker.
 *   <li>{@link Step#WHEEL} and {@link Step#JDK}: {@link LimitContender#WHEEL} and
 *       {@link LimitContender#JDK}.
 * </ul>
 */
public class TimeLimitFloorBenchmark extends LimiterThroughputBenchmark {

    /** How much of a deadline's work a run does. */
    public enum Step {
        FUTURE("the future, its handle stage, its completion"),
        CLOCK("… and one clock read"),
        HAND_OFF("… and a hand-off taken back (2 compare-and-sets)"),
        WHEEL(LimitContender.WHEEL.label()),
        JDK(LimitContender.JDK.label());

        private final String label;

        Step(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        LimitContender.Limiter create() {
            switch (this) {
                case FUTURE:
                    return new Partial() {
                        @Override
                        public CompletionStage<Object> limit(CompletableFuture<Object> future, Duration limit) {
                            future.handle(IGNORE);
                            return future;
                        }
                    };
                case CLOCK:
                    return new Partial() {
                        @Override
                        public CompletionStage<Object> limit(CompletableFuture<Object> future, Duration limit) {
                            future.handle(new Deadline(System.nanoTime() + limit.toNanos()));
                            return future;
                        }
                    };
                case HAND_OFF:
                    return new Partial() {
                        @Override
                        public CompletionStage<Object> limit(CompletableFuture<Object> future, Duration limit) {
                            throw new UnsupportedOperationException("a hand-off needs its caller's stripe");
                        }
                    };
                case WHEEL:
                    return LimitContender.WHEEL.create();
                default:
                    return LimitContender.JDK.create();
            }
        }
    }

    private static final BiFunction<Object, Throwable, Object> IGNORE = (value, failure) -> null;

    /** A partial step: nothing runs in the background, nothing to stop. */
    private abstract static class Partial implements LimitContender.Limiter {
        @Override
        public void stop() {}
    }

    /** A deadline: when it is due, and (with a hand-off) the stack it waits on until taken back. */
    private static final class Deadline implements BiFunction<Object, Throwable, Object> {
        final long due;
        final Stripe stripe;
        Deadline below;

        Deadline(long due) {
            this(due, null);
        }

        Deadline(long due, Stripe stripe) {
            this.due = due;
            this.stripe = stripe;
        }

        @Override
        public Object apply(Object value, Throwable failure) {
            if (stripe != null) {
                stripe.takeBack(this);
            }
            return null;
        }
    }

    /** A lock-free stack of deadlines, its top on a cache line of its own. */
    private static final class Stripe {
        private static final VarHandle TOP;

        static {
            try {
                TOP = MethodHandles.lookup().findVarHandle(Stripe.class, "top", Deadline.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @SuppressWarnings("unused")
        private long pad0, pad1, pad2, pad3, pad4, pad5, pad6, pad7;

        private volatile Deadline top;

        void push(Deadline deadline) {
            Deadline below;
            do {
                below = top;
                deadline.below = below;
            } while (!TOP.compareAndSet(this, below, deadline));
        }

        void takeBack(Deadline deadline) {
            if (top == deadline) {
                TOP.compareAndSet(this, deadline, deadline.below);
            }
        }
    }

    @Param({"FUTURE", "CLOCK", "HAND_OFF", "WHEEL", "JDK"})
    public Step step;

    @Override
    LimitContender.Limiter createLimiter() {
        return step.create();
    }

    /**
     * A benchmark thread's own stack for {@link Step#HAND_OFF}, as the timer's stripe per scheduling
     * thread: a take-back always finds its deadline on top (a deadline left below another thread's
     * would stay, as no worker takes these stacks).
     */
    @State(Scope.Thread)
    public static class Caller {
        final Stripe stripe = new Stripe();
    }

    @Benchmark
    @Threads(1)
    public CompletionStage<Object> oneThread(Caller caller) {
        return limitThenComplete(caller);
    }

    @Benchmark
    @Threads(2)
    public CompletionStage<Object> twoThreads(Caller caller) {
        return limitThenComplete(caller);
    }

    private CompletionStage<Object> limitThenComplete(Caller caller) {
        return step == Step.HAND_OFF ? handOffThenComplete(caller.stripe) : limitThenComplete(limiter);
    }

    /** {@link Step#HAND_OFF}: what {@link #limitThenComplete(LimitContender.Limiter)} does, with the hand-off. */
    private static CompletionStage<Object> handOffThenComplete(Stripe stripe) {
        CompletableFuture<Object> future = new CompletableFuture<>();
        Deadline deadline = new Deadline(System.nanoTime() + LIMIT.toNanos(), stripe);
        stripe.push(deadline);
        future.handle(deadline);
        future.complete(ANSWER);
        return future;
    }
}
