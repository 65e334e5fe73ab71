package io.wheeltimer.spring;

/**
 * A task of a {@link WheelTaskScheduler} at a fixed rate: run {@code n} (from 0) is due at {@code
 * start + n * period}, however late the runs before it were.
 */
final class FixedRateRun extends ScheduledRun {

    private final long start;
    private final long period;
    private long runs;

    FixedRateRun(WheelTaskScheduler scheduler, Runnable task, long start, long period) {
        super(scheduler, task, start);
        this.start = start;
        this.period = period;
    }

    @Override
    boolean next(long started, long completed) {
        runs++;
        due = start + TickerClock.spanProduct(runs, period);
        return true;
    }
}
