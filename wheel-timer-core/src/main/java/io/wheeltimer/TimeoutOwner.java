package io.wheeltimer;

/**
 * What a {@link TimeoutHandle} may ask of the timer that made it, and nothing more: the handle
 * sees this narrow interface, not the timer, so that it cannot reach the hand-off, the counters or
 * the lifecycle. Implemented by {@link TimerRuntime}.
 */
interface TimeoutOwner {

    /** The timer the user scheduled on ({@link Timeout#timer()}): the public front, not the runtime. */
    Timer timer();

    /**
     * A successful {@link Timeout#cancel()}: count it, tell the task, and, if the worker had taken
     * the handle into the wheel ({@code inWheel}), hand it to the worker to unlink.
     */
    void onCancelled(TimeoutHandle handle, boolean inWheel);

    /** Runs the handle's task on a task executor's thread (the handle is the executor's Runnable). */
    void runTask(TimeoutHandle handle);
}
