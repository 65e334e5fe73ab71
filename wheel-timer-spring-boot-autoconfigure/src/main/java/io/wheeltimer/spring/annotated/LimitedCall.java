package io.wheeltimer.spring.annotated;

import io.wheeltimer.Timeout;
import io.wheeltimer.TimerTask;
import io.wheeltimer.spring.WheelTimeLimit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;

/**
 * One call of a {@link WheelTimeLimit @WheelTimeLimit} method that returns a future: the task the
 * timer fires when the limit passes, and the callback of the method's own future, which completes
 * the caller's result and cancels the deadline at once. Callbacks go through {@code handle}, which,
 * unlike {@code whenComplete}, does not wrap a failure in a new {@code CompletionException} for its
 * own stage.
 */
final class LimitedCall implements TimerTask, BiFunction<Object, Throwable, Void> {

    private final TimeLimitedMethod method;
    final CompletableFuture<Object> result = new CompletableFuture<>();
    private Timeout timeout;
    /** The method's own future: set after the deadline is scheduled, so it may fire first. */
    private volatile CompletionStage<?> source;

    private volatile boolean cancelSource;

    LimitedCall(TimeLimitedMethod method) {
        this.method = method;
    }

    void start(Timeout timeout) {
        this.timeout = timeout;
        // The caller giving up is a timeout of its own: same cleanup.
        result.handle((value, failure) -> {
            if (result.isCancelled()) {
                timeout.cancel();
                if (method.cancelOnTimeout) {
                    cancelSourceNowOrOnceSet();
                }
            }
            return null;
        });
    }

    /** The method returned its future: follow it. */
    void follow(CompletionStage<?> stage) {
        source = stage;
        if (cancelSource) {
            cancel(stage); // the deadline fired before the method returned
        }
        stage.handle(this);
    }

    /** The method returned no future or threw: nothing to limit. */
    void abandon() {
        timeout.cancel();
    }

    @Override
    public void run(Timeout ignored) {
        if (result.completeExceptionally(method.timeoutException())) {
            method.exceeded();
            if (method.cancelOnTimeout) {
                cancelSourceNowOrOnceSet();
            }
        }
    }

    @Override
    public Void apply(Object value, Throwable failure) {
        timeout.cancel();
        if (failure == null) {
            result.complete(value);
        } else {
            result.completeExceptionally(
                    failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause()
                            : failure);
        }
        return null;
    }

    private void cancelSourceNowOrOnceSet() {
        cancelSource = true; // read by follow() after it sets source: one of the two cancels
        CompletionStage<?> stage = source;
        if (stage != null) {
            cancel(stage);
        }
    }

    private static void cancel(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().cancel(true);
        } catch (UnsupportedOperationException notAFuture) {
            // a stage that cannot be turned into a future cannot be cancelled either
        }
    }
}
