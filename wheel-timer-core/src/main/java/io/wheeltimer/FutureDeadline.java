package io.wheeltimer;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * The deadline of one future, for {@link Timer#orTimeout} and {@link Timer#completeOnTimeout}: one
 * object that is both the task the timer fires and the callback that cancels it when the future
 * completes first, so a call allocates this, the timeout and the {@code whenComplete} stage only.
 */
final class FutureDeadline<T> implements TimerTask, BiConsumer<T, Throwable> {

    /** In place of a value: complete exceptionally. Saves a field on every deadline. */
    static final Object FAIL = new Object();

    private final CompletableFuture<T> future;
    private final Object value;
    /** Written before {@code whenComplete} publishes this object to the completing thread. */
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
        future.whenComplete(deadline);
        return future;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void run(Timeout ignored) {
        if (future.isDone()) {
            return; // completed while the timeout was firing: skip the exception's stack trace
        }
        if (value == FAIL) {
            future.completeExceptionally(new TimeoutException());
        } else {
            future.complete((T) value);
        }
    }

    /** The future completed (perhaps by {@link #run}): nothing may stay pending. */
    @Override
    public void accept(T result, Throwable failure) {
        timeout.cancel();
    }

    @Override
    public String toString() {
        return (value == FAIL ? "orTimeout(" : "completeOnTimeout(") + future + ")";
    }
}
