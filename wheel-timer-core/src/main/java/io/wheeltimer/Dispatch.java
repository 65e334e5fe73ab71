package io.wheeltimer;

import io.wheeltimer.internal.RepeatLog;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Where user code runs: an expired timeout's task goes to the task executor (or runs on the
 * worker), its lateness to the listener, a cancelled one's {@code cancelled} is called; whatever
 * they throw is logged and counted, never let through to the worker. A flood of refusals or
 * failures is logged as one count per {@link #REPEAT_LOG_INTERVAL_NANOS}, so that it cannot stall
 * the worker.
 *
 * <p>Thread safe: the worker dispatches; executor threads run tasks; cancellers tell tasks.
 */
final class Dispatch {

    /** Repeated refusals and task failures are logged as one count per this interval. */
    static final long REPEAT_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Marks "run tasks on the worker thread", which needs no executor call. */
    static final Executor ON_WORKER = Runnable::run;

    private final Timer front;
    private final Lifecycle lifecycle;
    private final Admission admission;
    private final Counters counters;
    private final Executor taskExecutor;
    /**
     * Worker only: what the task executor, an {@link ExecutorService}, threw once it was shut down.
     * By the {@code ExecutorService} contract a shut-down service takes no new task, so later due
     * tasks are not offered to it: each is counted and reported as a repeat of this refusal. A
     * service's refusal may build an exception with a stack trace each time, which at thousands of
     * timeouts due at once would stall the worker (as a pool shut down before its timer does).
     */
    private Throwable shutDownRefusal;

    private final RepeatLog refusals;
    private final RepeatLog taskFailures;
    /** Read once per fired batch; null (the default) costs one volatile read. */
    private volatile LatenessListener latenessListener;

    /** @param taskExecutor {@link #ON_WORKER} to run tasks on the worker thread */
    Dispatch(
            Timer front,
            Ticker ticker,
            Lifecycle lifecycle,
            Admission admission,
            Counters counters,
            Executor taskExecutor) {
        this.front = front;
        this.lifecycle = lifecycle;
        this.admission = admission;
        this.counters = counters;
        this.taskExecutor = taskExecutor;
        this.refusals = new RepeatLog(
                TimerRuntime.LOG, "tasks refused by the task executor", REPEAT_LOG_INTERVAL_NANOS, ticker::nanoTime);
        this.taskFailures = new RepeatLog(
                TimerRuntime.LOG, "exceptions thrown by TimerTasks", REPEAT_LOG_INTERVAL_NANOS, ticker::nanoTime);
    }

    void setLatenessListener(LatenessListener listener) {
        this.latenessListener = listener;
    }

    LatenessListener latenessListener() {
        return latenessListener;
    }

    /**
     * Worker thread: an expired timeout's task goes to its executor (or runs right here).
     *
     * @param listener the lateness listener read for this batch, or null
     * @param clockNanos time since start read for this batch, for a task run here
     */
    void dispatch(TimeoutHandle handle, LatenessListener listener, long clockNanos) {
        boolean counted = handle.counted;
        if (counted) {
            admission.release(true);
            // Expired before its task starts, as Netty counts it: neither the task nor a thread it
            // signals still sees it pending.
            counters.expiredOne();
        }
        if (taskExecutor == ON_WORKER) {
            if (listener != null && counted) {
                reportLateness(listener, clockNanos - handle.deadlineNanos);
            }
            runTaskBody(handle);
            return;
        }
        Throwable refusal = shutDownRefusal;
        if (refusal == null || !((ExecutorService) taskExecutor).isShutdown()) {
            try {
                // The handle itself: the executor gets the Timeout as its Runnable (see Builder.taskExecutor).
                taskExecutor.execute(handle);
                return;
            } catch (Throwable t) {
                refusal = t;
                if (taskExecutor instanceof ExecutorService service && service.isShutdown()) {
                    shutDownRefusal = t;
                }
            }
        }
        if (counted) {
            counters.failed.increment();
        }
        Throwable thrown = refusal;
        refusals.report(
                () -> "The task executor refused the expired task " + handle.describeTask() + "; it does not run",
                thrown);
    }

    /** Runs the task on the executor's thread, which reads the clock for the lateness itself. */
    void runTask(TimeoutHandle handle) {
        LatenessListener listener = latenessListener;
        if (listener != null && handle.counted) {
            reportLateness(listener, lifecycle.elapsedNanos() - handle.deadlineNanos);
        }
        runTaskBody(handle);
    }

    private void runTaskBody(TimeoutHandle handle) {
        try {
            handle.task().run(handle);
        } catch (Throwable t) {
            if (handle.counted) {
                counters.failed.increment();
            }
            taskFailures.report(() -> "An exception was thrown by TimerTask " + handle.describeTask(), t);
        }
    }

    private void reportLateness(LatenessListener listener, long lateNanos) {
        try {
            listener.onRun(Math.max(lateNanos, 0));
        } catch (Throwable t) {
            TimerRuntime.LOG.log(System.Logger.Level.WARNING, "The lateness listener of " + front + " threw", t);
        }
    }

    /** A cancel won: the task's {@code cancelled}, on the cancelling thread (the worker's, on stop). */
    void tellCancelled(TimeoutHandle handle) {
        try {
            handle.task().cancelled(handle);
        } catch (Throwable t) {
            TimerRuntime.LOG.log(
                    System.Logger.Level.WARNING,
                    "An exception was thrown by TimerTask.cancelled() of " + handle.describeTask(),
                    t);
        }
    }

    /** Worker thread, once per round and on stop: logs the counts of repeated refusals and failures when due. */
    void flushLogs(boolean force) {
        refusals.flush(force);
        taskFailures.flush(force);
    }

    /** Ticker time at which a summary of repeated failures is due; {@code Long.MAX_VALUE}: none. */
    long nextLogFlushNanos() {
        return Math.min(refusals.nextFlushAtNanos(), taskFailures.nextFlushAtNanos());
    }
}
