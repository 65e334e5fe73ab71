package io.wheeltimer;

/**
 * A task to run once, after a delay, by a {@link Timer}. The same contract as Netty's
 * {@code io.netty.util.TimerTask}.
 */
@FunctionalInterface
public interface TimerTask {

    /**
     * Runs the task. With the default executor it runs on the timer's single worker thread, so it
     * should be short and must not block: a slow task delays every other timeout of that timer.
     * Hand slow work to an executor, or give the timer a {@code taskExecutor}.
     *
     * @param timeout the handle returned when this task was scheduled
     * @throws Exception anything; it is logged and counted as a failure, and the timer goes on
     */
    void run(Timeout timeout) throws Exception;

    /**
     * Called exactly once when the timeout is cancelled before it ran: on the thread whose
     * {@link Timeout#cancel()} succeeded, or on the worker thread for the timeouts that
     * {@link Timer#stop()} cancels. Release resources held for the task here. An exception thrown
     * here is logged and otherwise ignored. Does nothing by default.
     *
     * @param timeout the cancelled timeout
     */
    default void cancelled(Timeout timeout) {}
}
