package io.wheeltimer.spring;

import io.wheeltimer.Ticker;
import io.wheeltimer.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.support.TaskUtils;
import org.springframework.util.ErrorHandler;

/**
 * A Spring {@link TaskScheduler} on a wheel {@link Timer}: for the many one-shot delays that are
 * mostly cancelled before they are due, such as SockJS heartbeats (re-armed on every message),
 * STOMP receipts and session timeouts. Scheduling and cancelling cost a timeout on the wheel, O(1)
 * and lock-free, instead of a place in a heap-based pool; the timer's meters count them.
 *
 * <p><b>Where tasks run.</b> The timer's worker thread only hands each due task to the executor:
 * a slow task never delays the wheel. The auto-configured {@code wheelTaskScheduler} uses the
 * executor that {@code @WheelTimeout} calls use ({@code wheel-timer.annotation.executor}, by
 * default Boot's {@code applicationTaskExecutor}), else a {@link SimpleAsyncTaskExecutor} of its own.
 *
 * <p><b>Schedules.</b> {@link #schedule(Runnable, Instant)} runs once. Fixed-rate, fixed-delay and
 * {@link Trigger} schedules arm one timeout at a time and the next one after each run, so runs of a
 * task never overlap. Fixed rate does not drift: run {@code n} is due at {@code start + n * period},
 * however late the runs before it were; after a run that overran its period the next one is due at
 * once. Every task is due at a tick of the timer: it runs at most about one tick late, never early.
 *
 * <p><b>Errors</b>, as Spring's {@code ThreadPoolTaskScheduler} handles them: a repeated task that
 * throws is logged and keeps its schedule; a one-shot task's exception is logged and thrown again
 * from its future's {@code get} as an {@link java.util.concurrent.ExecutionException}. A custom
 * {@link #setErrorHandler ErrorHandler} replaces both; one that rethrows ends a repeated schedule.
 *
 * <p><b>Time.</b> {@link #getClock()} follows the timer's {@link Ticker}: the wall time read at
 * construction, moved on by the ticker. Instants given to this scheduler are read on that clock,
 * and delays are computed on the ticker, never on the wall clock. Under a
 * {@link io.wheeltimer.testing.ManualTicker} the clock moves only when the test advances it.
 *
 * <p>{@link #close()} cancels every repeated task and makes further calls fail with a
 * {@link TaskRejectedException}; one-shot tasks still pending are cancelled when they come due (or
 * when the timer stops). The timer itself is left running: it is shared.
 */
public class WheelTaskScheduler implements TaskScheduler, AutoCloseable {

    final Timer timer;
    final TickerClock clock;
    final Executor executor;
    private final SimpleAsyncTaskExecutor ownExecutor;
    /** Repeated tasks not yet done, for {@link #close()}; one-shots are not tracked, to stay cheap. */
    private final Set<ScheduledRun> repeating = ConcurrentHashMap.newKeySet();

    private volatile ErrorHandler errorHandler;
    private volatile boolean closed;

    /**
     * A scheduler on {@code timer}, whose time is the system's, running tasks on a
     * {@link SimpleAsyncTaskExecutor} of its own (closed with this scheduler).
     */
    public WheelTaskScheduler(Timer timer) {
        this(timer, Ticker.system());
    }

    /**
     * A scheduler on {@code timer}, whose {@link Ticker} is {@code ticker}, running tasks on a
     * {@link SimpleAsyncTaskExecutor} of its own (closed with this scheduler).
     */
    public WheelTaskScheduler(Timer timer, Ticker ticker) {
        this(timer, ticker, new SimpleAsyncTaskExecutor("wheel-task-"), true);
    }

    /**
     * A scheduler on {@code timer}, whose {@link Ticker} is {@code ticker}, running tasks on
     * {@code executor} (which this scheduler does not close).
     *
     * @param timer the timer the due times wait on; shared, never stopped by this scheduler
     * @param ticker the timer's ticker: the scheduler's clock follows it
     * @param executor runs the tasks; give an asynchronous one, since the timer's worker hands the
     *     tasks to it
     */
    public WheelTaskScheduler(Timer timer, Ticker ticker, Executor executor) {
        this(timer, ticker, executor, false);
    }

    private WheelTaskScheduler(Timer timer, Ticker ticker, Executor executor, boolean ownsExecutor) {
        this.timer = Objects.requireNonNull(timer, "timer must not be null");
        this.clock =
                new TickerClock(Objects.requireNonNull(ticker, "ticker must not be null"), Clock.systemDefaultZone());
        this.executor = Objects.requireNonNull(executor, "executor must not be null");
        this.ownExecutor = ownsExecutor ? (SimpleAsyncTaskExecutor) executor : null;
    }

    /**
     * Handles what the tasks throw, instead of Spring's defaults (log and keep the schedule for a
     * repeated task; log and fail the future for a one-shot). A handler that rethrows fails the
     * task's future and ends a repeated schedule. {@code null} restores the defaults.
     */
    public void setErrorHandler(ErrorHandler errorHandler) {
        this.errorHandler = errorHandler;
    }

    /** The wall time, read once at construction and moved on by the timer's {@link Ticker}. */
    @Override
    public Clock getClock() {
        return clock;
    }

    /** The executor that runs the tasks. */
    public Executor getExecutor() {
        return executor;
    }

    /** Runs {@code task} once, at {@code startTime} on {@link #getClock()} (at once if it is past). */
    @Override
    public ScheduledFuture<?> schedule(Runnable task, Instant startTime) {
        check(task, "task");
        check(startTime, "startTime");
        long now = clock.nanoTime();
        return new OneShotRun(this, task, clock.nanosAt(startTime, now)).start(now);
    }

    /**
     * Runs {@code task} at the times {@code trigger} gives, asked after each run.
     *
     * @return the task's future, or null if the trigger gives no first time
     */
    @Override
    public ScheduledFuture<?> schedule(Runnable task, Trigger trigger) {
        check(task, "task");
        check(trigger, "trigger");
        TriggeredRun run = new TriggeredRun(this, task, trigger);
        return run.first() ? startRepeating(run, clock.nanoTime()) : null;
    }

    /**
     * Runs {@code task} at {@code startTime}, then every {@code period} after {@code startTime}. A
     * start time in the past counts as now, as with a {@code ScheduledThreadPoolExecutor}: the runs
     * it missed are not caught up.
     */
    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
        check(task, "task");
        check(startTime, "startTime");
        long now = clock.nanoTime();
        long start = clock.nanosAt(startTime, now);
        return startRepeating(
                new FixedRateRun(this, task, start - now < 0 ? now : start, positive(period, "period")), now);
    }

    /** Runs {@code task} now, then every {@code period} after now. */
    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
        check(task, "task");
        long now = clock.nanoTime();
        return startRepeating(new FixedRateRun(this, task, now, positive(period, "period")), now);
    }

    /** Runs {@code task} at {@code startTime}, then {@code delay} after each run completed. */
    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Instant startTime, Duration delay) {
        check(task, "task");
        check(startTime, "startTime");
        long now = clock.nanoTime();
        return startRepeating(
                new FixedDelayRun(this, task, clock.nanosAt(startTime, now), positive(delay, "delay")), now);
    }

    /** Runs {@code task} now, then {@code delay} after each run completed. */
    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
        check(task, "task");
        long now = clock.nanoTime();
        return startRepeating(new FixedDelayRun(this, task, now, positive(delay, "delay")), now);
    }

    /**
     * Cancels every repeated task, refuses further tasks, and closes the executor of its own if it
     * has one. One-shot tasks still pending are cancelled when they come due or when the timer stops.
     * Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        for (ScheduledRun run : repeating) {
            run.cancel(false);
        }
        if (ownExecutor != null) {
            ownExecutor.close();
        }
    }

    @Override
    public String toString() {
        return "WheelTaskScheduler(" + timer + ")";
    }

    // --- for ScheduledRun ------------------------------------------------------------------------

    boolean isClosed() {
        return closed;
    }

    ErrorHandler errorHandler(boolean repeating) {
        ErrorHandler handler = errorHandler;
        return handler != null ? handler : TaskUtils.getDefaultErrorHandler(repeating);
    }

    void finished(ScheduledRun run) {
        repeating.remove(run);
    }

    /** Arms {@code run}'s first timeout, {@code now} being the ticker reading its due time came from. */
    private ScheduledFuture<?> startRepeating(ScheduledRun run, long now) {
        repeating.add(run);
        run.start(now);
        if (closed) {
            run.cancel(false); // closed while it was added: close() may not have seen it
        }
        return run;
    }

    private void check(Object argument, String name) {
        if (argument == null) {
            throw new NullPointerException(name + " must not be null");
        }
        if (closed) {
            throw new TaskRejectedException(this + " is closed and accepts no more tasks");
        }
    }

    private static long positive(Duration duration, String name) {
        if (duration == null) {
            throw new NullPointerException(name + " must not be null");
        }
        if (duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException(name + " must be a positive duration, was " + duration);
        }
        return TickerClock.spanNanos(duration);
    }
}
