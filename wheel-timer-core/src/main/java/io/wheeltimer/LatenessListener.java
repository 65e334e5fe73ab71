package io.wheeltimer;

/**
 * Told, for every timeout that fires, how late its task started: the time from the timeout's
 * deadline to the start of its run, in nanoseconds (0 or more). Set one with
 * {@link HashedWheelTimer#setLatenessListener(LatenessListener)}, for example to feed a latency
 * histogram.
 *
 * <p>It is called on the thread that runs the task (the worker, or the task executor's thread) just
 * before the task runs, once per fired timeout, so it must be cheap and must not block. An exception
 * it throws is logged and does not stop the task from running.
 *
 * <p>Precision: a task run by a task executor is measured when it starts. For tasks run on the
 * worker thread, the worker reads the clock once per 16 tasks it runs in a tick (a clock read per
 * task would cost more than a short task), so a figure may be short by the run time of up to 15
 * tasks that ran just before it in the same tick.
 */
@FunctionalInterface
public interface LatenessListener {

    /**
     * A timeout's task is about to run.
     *
     * @param latenessNanos nanoseconds from the timeout's deadline to the start of its run (see the
     *     precision above), never negative
     */
    void onRun(long latenessNanos);
}
