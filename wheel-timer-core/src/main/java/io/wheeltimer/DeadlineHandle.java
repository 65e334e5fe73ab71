package io.wheeltimer;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * The deadline of one future on a {@link HashedWheelTimer} ({@link Timer#orTimeout},
 * {@link Timer#completeOnTimeout}): the timeout, its task and the callback that cancels it when
 * the future completes first, in one object. A call allocates this and the {@code handle} stage
 * only, 16 bytes less than a {@link FutureDeadline} beside its timeout. {@link Timeout#task()}
 * returns the handle itself.
 */
final class DeadlineHandle<T> extends TimeoutHandle implements TimerTask, BiFunction<T, Throwable, Void> {

    private final CompletableFuture<T> future;
    /** The value to complete with, or a {@link FutureDeadline.Fail} (see {@link FutureDeadline#onExpiry}). */
    private final Object value;

    DeadlineHandle(TimeoutOwner owner, long deadlineNanos, CompletableFuture<T> future, Object value) {
        super(owner, deadlineNanos);
        this.future = future;
        this.value = value;
    }

    @Override
    public void run(Timeout ignored) {
        FutureDeadline.expire(future, value);
    }

    /** The future completed (perhaps by {@link #run(Timeout)}): nothing may stay pending. */
    @Override
    public Void apply(T result, Throwable failure) {
        cancel();
        return null;
    }

    @Override
    String describeTask() {
        return FutureDeadline.describe(future, value);
    }
}
