package io.wheeltimer;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

/**
 * The deadline of one future, for {@link Timer#orTimeout} and {@link Timer#completeOnTimeout} on
 * any {@link Timer}: one object that is both the task the timer fires and the callback that cancels
 * it when the future completes first, so a call allocates this, the timeout and the {@code handle}
 * stage only. A {@link HashedWheelTimer} saves this object too: its {@link DeadlineHandle} is the
 * timeout, the task and the callback in one, with the helpers here. It is
 * {@code handle}, not {@code whenComplete}: on an exceptional completion {@code whenComplete} wraps
 * the failure in a new {@code CompletionException} (stack trace and all) for its own stage.
 */
final class FutureDeadline<T> implements TimerTask, BiFunction<T, Throwable, Void> {

    /** In place of a value: complete exceptionally. Saves a field on every deadline. */
    static final Object FAIL = new Object();

    private final CompletableFuture<T> future;
    private final Object value;
    /** Written before {@code handle} publishes this object to the completing thread. */
    private Timeout timeout;

    private FutureDeadline(CompletableFuture<T> future, Object value) {
        this.future = future;
        this.value = value;
    }

    static <T> CompletableFuture<T> limit(Timer timer, CompletableFuture<T> future, Object value, Duration timeout) {
        Objects.requireNonNull(future, "future must not be null");
        Objects.requireNonNull(timeout, "timeout must not be null");
        if (future.isDone()) {
            return future; // as the JDK: nothing to limit, nothing scheduled
        }
        FutureDeadline<T> deadline = new FutureDeadline<>(future, value);
        deadline.timeout = timer.newTimeout(deadline, timeout);
        // Runs at once if the future completed meanwhile: the timeout is cancelled either way.
        future.handle(deadline);
        return future;
    }

    @Override
    public void run(Timeout ignored) {
        expire(future, value);
    }

    /** The deadline passed: completes {@code future} with {@code value}, or fails it if that is {@link #FAIL}. */
    @SuppressWarnings("unchecked")
    static <T> void expire(CompletableFuture<T> future, Object value) {
        if (future.isDone()) {
            return; // completed while the timeout was firing: skip the exception's stack trace
        }
        if (value == FAIL) {
            future.completeExceptionally(new Expired());
        } else {
            future.complete((T) value);
        }
    }

    /** {@code timeout} in nanoseconds, as {@link Timer#newTimeout(TimerTask, Duration)} counts it. */
    static long nanos(Duration timeout) {
        try {
            return timeout.toNanos();
        } catch (ArithmeticException tooLong) {
            return timeout.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    static String describe(CompletableFuture<?> future, Object value) {
        return (value == FAIL ? "orTimeout(" : "completeOnTimeout(") + future + ")";
    }

    /** The future completed (perhaps by {@link #run}): nothing may stay pending. */
    @Override
    public Void apply(T result, Throwable failure) {
        timeout.cancel();
        return null;
    }

    /**
     * Without a stack trace: it would show only the timer's thread, and filling it in costs more
     * than the rest of the expiry (a million deadlines passing together must not take seconds).
     */
    static final class Expired extends TimeoutException {

        private static final long serialVersionUID = 1L;

        @Override
        public Throwable fillInStackTrace() {
            return this;
        }
    }

    @Override
    public String toString() {
        return describe(future, value);
    }
}
