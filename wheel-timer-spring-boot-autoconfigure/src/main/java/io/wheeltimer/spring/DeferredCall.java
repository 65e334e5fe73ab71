package io.wheeltimer.spring;

import io.wheeltimer.Timeout;
import io.wheeltimer.TimerTask;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import org.aopalliance.intercept.MethodInvocation;

/**
 * The task of a {@link WheelTimeout @WheelTimeout} call: runs the intercepted call when the timeout
 * fires. For future-returning methods it completes {@link #result} with the method's own future;
 * otherwise a failure propagates, so the timer logs it and counts it as failed.
 */
final class DeferredCall implements TimerTask {

    private final String description;
    private final MethodInvocation invocation;
    private final Result result;

    DeferredCall(String description, MethodInvocation invocation, boolean withResult) {
        this.description = description;
        this.invocation = invocation;
        this.result = withResult ? new Result() : null;
    }

    /** The future handed to the caller; cancelling it cancels the timeout. */
    CompletableFuture<Object> result(Timeout timeout) {
        result.timeout = timeout;
        return result;
    }

    @Override
    public void run(Timeout timeout) throws Exception {
        if (result == null) {
            proceed();
            return;
        }
        Object value;
        try {
            value = invocation.proceed();
        } catch (Throwable t) {
            result.completeExceptionally(t); // the caller's future carries it, whatever it is
            return;
        }
        if (value instanceof CompletionStage<?> stage) {
            stage.whenComplete((v, e) -> {
                if (e != null) {
                    result.completeExceptionally(e);
                } else {
                    result.complete(v);
                }
            });
        } else if (value instanceof Future<?> future) {
            // A plain Future can only be waited for: not on the worker thread.
            ForkJoinPool.commonPool().execute(() -> complete(future));
        } else {
            result.complete(value);
        }
    }

    private void complete(Future<?> future) {
        try {
            result.complete(future.get());
        } catch (ExecutionException e) {
            result.completeExceptionally(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result.completeExceptionally(e);
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
    }

    private Object proceed() throws Exception {
        try {
            return invocation.proceed();
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(description + " threw " + t, t);
        }
    }

    @Override
    public void cancelled(Timeout timeout) {
        if (result != null) {
            result.cancel(false);
        }
    }

    @Override
    public String toString() {
        return description;
    }

    /** A future whose cancellation cancels the timeout. */
    private static final class Result extends CompletableFuture<Object> {
        volatile Timeout timeout;

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            Timeout t = timeout;
            if (cancelled && t != null) {
                t.cancel();
            }
            return cancelled;
        }
    }
}
