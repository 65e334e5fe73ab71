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

    /**
     * Passed in place of a value by {@code orTimeout}: complete exceptionally. The deadline keeps
     * the {@link Fail} of its limit instead ({@link #onExpiry}), so that the exception can name it.
     */
    static final Object FAIL = new Object();

    /**
     * The last {@link Fail} made, reused while the limits asked for are equal (most callers use one
     * constant limit), so that naming the limit allocates nothing per call. Read and written without
     * synchronization: a {@code Fail} is immutable (a final field), so a thread sees either an
     * older one, which it replaces, or a complete one.
     */
    private static Fail lastFail = new Fail(Duration.ZERO);

    private final CompletableFuture<T> future;
    private final Object value;
    /** Written before {@code handle} publishes this object to the completing thread. */
    private Timeout timeout;

    private FutureDeadline(CompletableFuture<T> future, Object value) {
        this.future = future;
        this.value = value;
    }

    static <T> CompletableFuture<T> limit(Timer timer, CompletableFuture<T> future, Object value, Duration timeout) {
        if (!needsDeadline(future, timeout)) {
            return future;
        }
        FutureDeadline<T> deadline = new FutureDeadline<>(future, onExpiry(value, timeout));
        deadline.timeout = timer.newTimeout(deadline, timeout);
        // Runs at once if the future completed meanwhile: the timeout is cancelled either way.
        future.handle(deadline);
        return future;
    }

    /**
     * The argument checks of every {@code orTimeout} and {@code completeOnTimeout}, and whether the
     * future needs a deadline: a future that is already complete is returned as it is, as the JDK
     * does, with nothing scheduled.
     *
     * @throws NullPointerException if {@code future} or {@code timeout} is null
     */
    static boolean needsDeadline(CompletableFuture<?> future, Duration timeout) {
        Objects.requireNonNull(future, "future must not be null");
        Objects.requireNonNull(timeout, "timeout must not be null");
        return !future.isDone();
    }

    @Override
    public void run(Timeout ignored) {
        expire(future, value);
    }

    /**
     * What a deadline keeps to act on when it passes: {@code value} itself, or for {@link #FAIL}
     * the {@link Fail} of {@code timeout}, shared by the deadlines of an equal limit.
     */
    static Object onExpiry(Object value, Duration timeout) {
        if (value != FAIL) {
            return value;
        }
        Fail last = lastFail;
        if (last.limit != timeout && !last.limit.equals(timeout)) {
            last = new Fail(timeout);
            lastFail = last;
        }
        return last;
    }

    /**
     * The deadline passed: completes {@code future} with {@code value}, or fails it if that is a
     * {@link Fail} (see {@link #onExpiry}).
     */
    @SuppressWarnings("unchecked")
    static <T> void expire(CompletableFuture<T> future, Object value) {
        if (future.isDone()) {
            return; // completed while the timeout was firing: nothing to make
        }
        if (value instanceof Fail fail) {
            future.completeExceptionally(new Expired(fail.limit));
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
        return (value instanceof Fail ? "orTimeout(" : "completeOnTimeout(") + future + ")";
    }

    /** The future completed (perhaps by {@link #run}): nothing may stay pending. */
    @Override
    public Void apply(T result, Throwable failure) {
        timeout.cancel();
        return null;
    }

    /** In place of a value: fail with a {@link TimeoutException} naming {@link #limit}. */
    static final class Fail {

        final Duration limit;

        Fail(Duration limit) {
            this.limit = limit;
        }
    }

    /**
     * What {@code orTimeout} fails a future with: a {@link TimeoutException} whose message names the
     * limit ({@code did not complete within PT2S}), and which prints as one
     * ({@code java.util.concurrent.TimeoutException: did not complete within PT2S}) rather than as
     * this nested class. Without a stack trace: it would show only the timer's thread, and filling
     * it in costs more than the rest of the expiry (a million deadlines passing together must not
     * take seconds). The message is made only when asked for, not at each expiry.
     */
    static final class Expired extends TimeoutException {

        private static final long serialVersionUID = 1L;

        private final Duration limit;

        Expired(Duration limit) {
            this.limit = limit;
        }

        @Override
        public String getMessage() {
            return "did not complete within " + limit;
        }

        @Override
        public String toString() {
            return TimeoutException.class.getName() + ": " + getLocalizedMessage();
        }

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
