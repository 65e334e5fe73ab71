package io.wheeltimer.spring.annotated;

import io.wheeltimer.Timeout;
import io.wheeltimer.Timer;
import io.wheeltimer.TimerTask;
import io.wheeltimer.spring.WheelTimeout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The task of a {@link WheelTimeout @WheelTimeout} call: runs the intercepted call when the timeout
 * fires, on the call's executor, inside the caller's context and observed. For future-returning
 * methods it completes {@link #result} in every case (value, failure, refusal, stop); otherwise a
 * failure propagates, so the timer logs it and counts it as failed.
 *
 * <p>On a timer whose task executor is a {@link WheelTimeoutTaskExecutor} (every timer the starter
 * builds), the worker hands the whole timeout to the call's executor ({@link #handOver}), so the
 * timer measures its lateness at the real start and counts its failure. On any other timer the
 * call moves to its executor from {@link #run}; a failure there is logged only.
 */
final class DeferredCall implements TimerTask {

    private static final Log logger = LogFactory.getLog(DeferredCall.class);

    private final ScheduledMethod method;
    private final ScheduledMethod.Resolved beans;
    private final MethodInvocation invocation;
    private final CallerContext context;
    private final HandedOverCalls handedOverCalls;
    private final Result result;
    /** Set on the worker before the timeout goes to the executor; read on the executor's thread. */
    private volatile boolean handedOver;
    /** Whether {@link #handedOverCalls} counts this call as waiting for a thread. */
    private volatile boolean waiting;

    DeferredCall(
            ScheduledMethod method,
            ScheduledMethod.Resolved beans,
            MethodInvocation invocation,
            CallerContext context,
            HandedOverCalls handedOverCalls) {
        this.method = method;
        this.beans = beans;
        this.invocation = invocation;
        this.context = context;
        this.handedOverCalls = handedOverCalls;
        this.result = method.result == ScheduledMethod.Result.FUTURE ? new Result() : null;
    }

    /** The future handed to the caller; cancelling it cancels the timeout. */
    CompletableFuture<Object> result(Timeout timeout) {
        result.timeout = timeout;
        return result;
    }

    /**
     * Worker thread: runs the fired timeout (the timer's own run of it, {@code timeoutRun}) on this
     * call's executor, or on {@code fallback} where the call has none.
     *
     * @throws RuntimeException the executor's refusal, after the caller's future got it
     */
    void handOver(Runnable timeoutRun, Executor fallback) {
        Executor target = beans.executor() != null ? beans.executor() : fallback;
        handedOver = true;
        execute(target, timeoutRun);
    }

    private void execute(Executor executor, Runnable run) {
        waiting = true;
        handedOverCalls.handedOver(beans.timer());
        try {
            executor.execute(run);
        } catch (RuntimeException | Error refused) {
            started();
            refused(refused);
            throw refused;
        }
    }

    /** No longer waits for a thread (idempotent: only the first call counts). */
    private void started() {
        if (waiting) {
            waiting = false;
            handedOverCalls.done(beans.timer());
        }
    }

    @Override
    public void run(Timeout timeout) throws Exception {
        Executor executor = beans.executor();
        if (executor == null || handedOver) {
            runHere(timeout);
            return;
        }
        execute(executor, () -> runLoggingFailure(timeout));
    }

    private void refused(Throwable refusal) {
        if (result != null) {
            result.completeExceptionally(refusal);
        }
    }

    private void runLoggingFailure(Timeout timeout) {
        try {
            runHere(timeout);
        } catch (Throwable t) {
            logger.warn("@WheelTimeout method " + method.description + " threw", t);
        }
    }

    @SuppressWarnings("try") // the scope restores the caller's context; its body need not name it
    private void runHere(Timeout timeout) throws Exception {
        boolean stopped = handedOverCalls.mayNotStart(timeout.timer());
        // Only now, after the state was read: a shutdown that sees this call no longer waiting, and
        // closes the timer's calls, has let it run.
        started();
        if (result != null && result.isCancelled()) {
            return; // the caller gave up on it while it waited for a thread
        }
        if (stopped) {
            Timer timer = timeout.timer();
            // Stopped (the context may be closed) after the call was handed over: it never starts.
            if (result != null) {
                result.cancel(false);
            } else {
                logger.warn("@WheelTimeout method " + method.description + " did not run: " + timer
                        + " was stopped before it started");
            }
            return;
        }
        try (CallerContext.Scope scope = context.restore()) {
            Object value;
            try {
                value = proceed();
            } catch (Throwable t) {
                if (result != null) {
                    result.completeExceptionally(t); // the caller's future carries it, whatever it is
                    return;
                }
                throw asException(t);
            }
            if (result != null) {
                complete(value);
            }
        }
    }

    private Object proceed() throws Throwable {
        Object registry = beans.observationRegistry();
        return registry != null
                ? TaskObservation.observe(registry, beans.timerBeanName(), method.description, invocation)
                : invocation.proceed();
    }

    private Exception asException(Throwable t) {
        if (t instanceof Exception e) {
            return e;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(method.description + " threw " + t, t);
    }

    private void complete(Object value) {
        if (value instanceof CompletionStage<?> stage) {
            stage.whenComplete((v, e) -> {
                if (e != null) {
                    result.completeExceptionally(e);
                } else {
                    result.complete(v);
                }
            });
        } else if (value instanceof Future<?> future) {
            // A plain Future can only be waited for: not on the thread that ran the call.
            ForkJoinPool.commonPool().execute(() -> completeWhenDone(future));
        } else {
            result.complete(value);
        }
    }

    private void completeWhenDone(Future<?> future) {
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

    @Override
    public void cancelled(Timeout timeout) {
        if (result != null) {
            result.cancel(false);
        }
    }

    @Override
    public String toString() {
        return method.description;
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
