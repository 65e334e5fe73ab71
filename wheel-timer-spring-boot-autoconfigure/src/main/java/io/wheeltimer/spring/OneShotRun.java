package io.wheeltimer.spring;

/** A task of a {@link WheelTaskScheduler} that runs once. */
final class OneShotRun extends ScheduledRun {

    OneShotRun(WheelTaskScheduler scheduler, Runnable task, long due) {
        super(scheduler, task, due);
    }

    @Override
    boolean repeats() {
        return false;
    }

    @Override
    boolean next(long started, long completed) {
        return false;
    }
}
