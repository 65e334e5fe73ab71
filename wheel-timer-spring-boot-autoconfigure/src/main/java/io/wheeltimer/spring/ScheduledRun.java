package io.wheeltimer.spring;

import io.wheeltimer.Timeout;
import io.wheeltimer.TimerTask;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.core.task.TaskRejectedException;

/**
 * One task of a {@link WheelTaskScheduler}: the {@link ScheduledFuture} its caller gets, the
 * {@link TimerTask} of its current timeout, and the {@link Runnable} its executor runs. The worker
 * thread only hands it to the executor; after each run a repeated task computes its next due time
 * and arms a new timeout, so runs never overlap, as with a {@code ScheduledThreadPoolExecutor}.
 *
 * <p>Due times are ticker readings ({@link TickerClock}). The states: {@code SCHEDULED -> RUNNING ->
 * SCHEDULED} again for each further run of a repeated task; then {@code COMPLETED} (a one-shot ran,
 * or a trigger has no next time) or {@code FAILED} (a one-shot threw, the executor refused a run, or
 * the error handler rethrew); {@code CANCELLED} from {@code SCHEDULED} or {@code RUNNING}, by
 * {@link #cancel}, by the scheduler's close, or by the timer's stop. A one-shot costs this object
 * and its timeout; nothing else is allocated to schedule or to cancel it.
 *
 * <p>When each run is due is its subclass's part: {@link OneShotRun}, {@link FixedRateRun},
 * {@link FixedDelayRun} and {@link TriggeredRun}.
 */
abstract class ScheduledRun implements ScheduledFuture<Object>, TimerTask, Runnable {

    private static final Log logger = LogFactory.getLog(WheelTaskScheduler.class);

    static final int SCHEDULED = 0;
    static final int RUNNING = 1;
    static final int COMPLETED = 2;
    static final int FAILED = 3;
    static final int CANCELLED = 4;

    private static final VarHandle STATE;
    private static final VarHandle DUE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(ScheduledRun.class, "state", int.class);
            DUE = lookup.findVarHandle(ScheduledRun.class, "due", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final WheelTaskScheduler scheduler;
    final Runnable task;
    /** The ticker reading the current (or last) run is due at. */
    volatile long due;

    /** Starts as {@code SCHEDULED} (0): left to its default, as a volatile write would cost a fence. */
    private volatile int state;

    private volatile Timeout timeout;
    /** The thread running the task, for {@code cancel(true)}; guarded by {@code this} when cleared. */
    private volatile Thread runner;
    /** Written before the state becomes {@code FAILED}, read after. */
    private Throwable failure;
    /** Callers blocked in {@code get}; a completion takes the monitor only when there are some. */
    private volatile int waiters;

    /**
     * @param due the ticker reading the first run is due at, if known (a plain write: the timer's
     *     hand-off publishes this object to the worker, and the caller publishes it to other threads)
     */
    ScheduledRun(WheelTaskScheduler scheduler, Runnable task, long due) {
        this.scheduler = scheduler;
        this.task = task;
        DUE.set(this, due);
    }

    /** Whether this task runs again after a run: every kind but the one-shot does. */
    boolean repeats() {
        return true;
    }

    /**
     * After a run that did not fail: sets {@link #due} to the next run's due time and returns true,
     * or returns false when there is none.
     *
     * @param started the ticker reading when the run started
     * @param completed the ticker reading when it completed
     */
    abstract boolean next(long started, long completed);

    /**
     * Arms the first timeout, on the caller's thread.
     *
     * @param now the ticker reading the due time was computed from
     * @throws TaskRejectedException if the timer is stopped or holds its maximum of pending timeouts
     */
    final ScheduledRun start(long now) {
        try {
            arm(now);
        } catch (IllegalStateException | RejectedExecutionException e) {
            complete(SCHEDULED, FAILED, e);
            throw new TaskRejectedException(scheduler + " did not accept " + task + ": " + e.getMessage(), e);
        }
        return this;
    }

    /** Arms the timeout of the run due at {@link #due}, its delay counted from the ticker reading {@code now}. */
    private void arm(long now) {
        long delay = due - now;
        Timeout armed = scheduler.timer.newTimeout(this, delay, TimeUnit.NANOSECONDS);
        this.timeout = armed;
        // A cancel that came before the field was set cancelled the previous timeout, or none.
        if (state == CANCELLED) {
            armed.cancel();
        }
    }

    /**
     * Worker thread (or the timer's task executor): the timeout fired; hand the run over. A refusal
     * fails this task and is thrown on, so that the timer logs it and counts it in its failures.
     */
    @Override
    public final void run(Timeout fired) {
        if (state != SCHEDULED) {
            return;
        }
        if (scheduler.isClosed()) {
            cancel(false);
            return;
        }
        try {
            scheduler.executor.execute(this);
        } catch (RuntimeException refused) {
            if (complete(SCHEDULED, FAILED, refused)) {
                throw refused;
            }
        }
    }

    /**
     * The timeout was cancelled: by {@link #cancel} (then this does nothing), or by the timer's stop.
     * Only the pending timeout can be cancelled: the earlier ones have fired.
     */
    @Override
    public final void cancelled(Timeout cancelled) {
        cancel(false);
    }

    /** The executor's thread: one run, then the next timeout of a repeated task. */
    @Override
    public final void run() {
        if (!STATE.compareAndSet(this, SCHEDULED, RUNNING)) {
            return; // cancelled after the hand-over
        }
        runner = Thread.currentThread();
        long started = scheduler.clock.nanoTime();
        Throwable error = runTask();
        synchronized (this) {
            runner = null; // no interrupt from cancel(true) after this
        }
        if (error != null) {
            complete(RUNNING, FAILED, error);
            return;
        }
        if (!repeats()) {
            complete(RUNNING, COMPLETED, null);
            return;
        }
        boolean again;
        try {
            again = next(started, scheduler.clock.nanoTime());
        } catch (RuntimeException | Error triggerFailed) {
            complete(RUNNING, FAILED, triggerFailed);
            logger.error(
                    scheduler + ": the trigger of " + task + " failed; the task is not scheduled again", triggerFailed);
            return;
        }
        if (!again) {
            complete(RUNNING, COMPLETED, null);
        } else if (STATE.compareAndSet(this, RUNNING, SCHEDULED)) {
            rearm();
        }
    }

    /** Runs the task through the error handler, as Spring's schedulers do: returns what it rethrew. */
    private Throwable runTask() {
        try {
            task.run();
            return null;
        } catch (Throwable thrown) {
            Throwable error = thrown instanceof UndeclaredThrowableException undeclared
                            && undeclared.getUndeclaredThrowable() != null
                    ? undeclared.getUndeclaredThrowable()
                    : thrown;
            try {
                scheduler.errorHandler(repeats()).handleError(error);
                return null;
            } catch (Throwable rethrown) {
                return rethrown;
            }
        }
    }

    private void rearm() {
        try {
            arm(scheduler.clock.nanoTime());
        } catch (IllegalStateException stopped) {
            cancel(false); // the timer was stopped: as a scheduler's shutdown cancels its periodic tasks
        } catch (RuntimeException refused) {
            if (complete(SCHEDULED, FAILED, refused)) {
                logger.warn(
                        scheduler + ": the timer refused the next run of " + task + "; the task is not scheduled again",
                        refused);
            }
        }
    }

    private boolean complete(int from, int to, Throwable cause) {
        failure = cause;
        if (!STATE.compareAndSet(this, from, to)) {
            return false;
        }
        done();
        return true;
    }

    private void done() {
        if (repeats()) {
            scheduler.finished(this);
        }
        if (waiters != 0) {
            synchronized (this) {
                notifyAll();
            }
        }
    }

    // --- ScheduledFuture ---------------------------------------------------------------------

    /**
     * Cancels this task: a pending run never starts, a repeated task is not scheduled again, and
     * with {@code mayInterruptIfRunning} a run in progress is interrupted.
     *
     * @return true only for the call that cancelled it; false once it completed, failed or was cancelled
     */
    @Override
    public final boolean cancel(boolean mayInterruptIfRunning) {
        int current;
        do {
            current = state;
            if (current >= COMPLETED) {
                return false;
            }
        } while (!STATE.compareAndSet(this, current, CANCELLED));
        Timeout pending = timeout;
        if (pending != null) {
            pending.cancel();
        }
        if (mayInterruptIfRunning && current == RUNNING) {
            synchronized (this) {
                Thread running = runner;
                if (running != null) {
                    running.interrupt();
                }
            }
        }
        done();
        return true;
    }

    @Override
    public final boolean isCancelled() {
        return state == CANCELLED;
    }

    @Override
    public final boolean isDone() {
        return state >= COMPLETED;
    }

    /**
     * Waits until a one-shot task has run, or a repeated one's schedule ended (cancelled, failed, or
     * its trigger has no next time).
     *
     * @return null
     * @throws CancellationException if it was cancelled
     * @throws ExecutionException with what the task threw (a one-shot's exception, through the error
     *     handler), or the executor's or the timer's refusal
     */
    @Override
    public final Object get() throws InterruptedException, ExecutionException {
        if (!isDone()) {
            synchronized (this) {
                waiters++;
                try {
                    while (!isDone()) {
                        wait();
                    }
                } finally {
                    waiters--;
                }
            }
        }
        return outcome();
    }

    @Override
    public final Object get(long amount, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (!isDone()) {
            long deadline = System.nanoTime() + unit.toNanos(amount);
            synchronized (this) {
                waiters++;
                try {
                    while (!isDone()) {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            throw new TimeoutException(task + " did not complete within " + amount + " " + unit);
                        }
                        TimeUnit.NANOSECONDS.timedWait(this, left);
                    }
                } finally {
                    waiters--;
                }
            }
        }
        return outcome();
    }

    private Object outcome() throws ExecutionException {
        int current = state;
        if (current == CANCELLED) {
            throw new CancellationException(task + " was cancelled");
        }
        if (current == FAILED) {
            throw new ExecutionException(failure);
        }
        return null;
    }

    /** Until the current (or last) run's due time on the timer's ticker; negative once it is past. */
    @Override
    public final long getDelay(TimeUnit unit) {
        return unit.convert(due - scheduler.clock.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public final int compareTo(Delayed other) {
        if (other == this) {
            return 0;
        }
        long difference = other instanceof ScheduledRun run && run.scheduler.clock == scheduler.clock
                ? due - run.due // one ticker: compare the readings, without reading it
                : getDelay(TimeUnit.NANOSECONDS) - other.getDelay(TimeUnit.NANOSECONDS);
        return Long.signum(difference);
    }

    @Override
    public String toString() {
        String[] names = {"scheduled", "running", "completed", "failed", "cancelled"};
        return getClass().getSimpleName() + "(" + task + ", " + names[state] + ", due in "
                + Duration.ofNanos(getDelay(TimeUnit.NANOSECONDS)) + ")";
    }
}
