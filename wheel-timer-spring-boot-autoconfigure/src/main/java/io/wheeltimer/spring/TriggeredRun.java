package io.wheeltimer.spring;

import java.time.Instant;
import org.springframework.scheduling.Trigger;
import org.springframework.scheduling.support.SimpleTriggerContext;

/**
 * A task of a {@link WheelTaskScheduler} on a {@link Trigger}: each run is due when the trigger
 * says, asked after the previous run with its times.
 */
final class TriggeredRun extends ScheduledRun {

    private final Trigger trigger;
    private final SimpleTriggerContext context;
    /** The time the trigger gave for the current run. */
    private Instant scheduled;

    TriggeredRun(WheelTaskScheduler scheduler, Runnable task, Trigger trigger) {
        super(scheduler, task, 0); // due once the trigger gave the first time (first())
        this.trigger = trigger;
        this.context = new SimpleTriggerContext(scheduler.clock);
    }

    /** Asks the trigger for the first time; false if it has none. */
    boolean first() {
        return schedule(scheduler.clock.nanoTime());
    }

    @Override
    boolean next(long started, long completed) {
        TickerClock clock = scheduler.clock;
        context.update(scheduled, clock.instantAt(started), clock.instantAt(completed));
        return schedule(completed);
    }

    private boolean schedule(long now) {
        Instant next = trigger.nextExecution(context);
        if (next == null) {
            return false;
        }
        scheduled = next;
        due = scheduler.clock.nanosAt(next, now);
        return true;
    }
}
