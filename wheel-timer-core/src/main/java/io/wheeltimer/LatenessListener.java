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
 */
@FunctionalInterface
public interface LatenessListener {

    /**
     * A timeout's task is about to run.
     *
     * @param latenessNanos nanoseconds from the timeout's deadline to now, never negative
     */
    void onRun(long latenessNanos);
}
