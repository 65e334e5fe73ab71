package io.wheeltimer.spring.annotated;

import io.wheeltimer.Timeout;
import io.wheeltimer.spring.WheelTimeout;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The task executor of the timers the starter builds: a fired {@link WheelTimeout @WheelTimeout}
 * call goes to the executor the call names (by default {@code applicationTaskExecutor}); every
 * other task, and a call without an executor, goes to the {@code fallback} (by default: runs right
 * here, on the worker thread). As the timer's own executor, it lets the timer measure a call's
 * lateness when it really starts and count it as failed when it throws or is refused, wherever it
 * runs.
 *
 * <p>Give it to a timer you build yourself with
 * {@code HashedWheelTimer.builder().taskExecutor(new WheelTimeoutTaskExecutor(...))}; the
 * {@code HashedWheelTimer.Builder} bean of the starter already has it.
 */
public final class WheelTimeoutTaskExecutor implements Executor {

    private final Executor fallback;

    /** Runs what is not a {@code @WheelTimeout} call on the worker thread. */
    public WheelTimeoutTaskExecutor() {
        this(Runnable::run);
    }

    /** @param fallback runs the tasks that are not {@code @WheelTimeout} calls, and calls without an executor */
    public WheelTimeoutTaskExecutor(Executor fallback) {
        this.fallback = Objects.requireNonNull(fallback, "fallback must not be null");
    }

    @Override
    public void execute(Runnable command) {
        // The timer hands over the fired Timeout itself (HashedWheelTimer.Builder.taskExecutor documents
        // it): running it runs the task, measures its lateness and counts a failure.
        if (command instanceof Timeout timeout && timeout.task() instanceof DeferredCall call) {
            call.handOver(command, fallback);
        } else {
            fallback.execute(command);
        }
    }

    @Override
    public String toString() {
        return "WheelTimeoutTaskExecutor(fallback: " + fallback + ")";
    }
}
