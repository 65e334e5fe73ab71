package io.wheeltimer.spring;

/**
 * A task of a {@link WheelTaskScheduler} with a fixed delay: each run after the first is due {@code
 * delay} after the previous one completed.
 */
final class FixedDelayRun extends ScheduledRun {

    private final long delay;

    FixedDelayRun(WheelTaskScheduler scheduler, Runnable task, long start, long delay) {
        super(scheduler, task, start);
        this.delay = delay;
    }

    @Override
    boolean next(long started, long completed) {
        due = completed + delay;
        return true;
    }
}
