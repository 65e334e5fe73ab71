package io.wheeltimer.spring.autoconfigure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.config.MeterFilter;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.TimerStats;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Meters for every {@link HashedWheelTimer} bean, tagged {@code name} = the bean name. Counts
 * that only grow are function counters, so dashboards can take rates. {@code wheel.timer.lateness}
 * is fed by the timer's {@link io.wheeltimer.LatenessListener}, which this binder sets (replacing
 * one the application set): one {@code record} per fired timeout, on the thread that runs it.
 */
public class WheelTimerMeterBinder implements MeterBinder {

    private final Supplier<Map<String, HashedWheelTimer>> timers;
    /** Per timer, the lateness timers of every registry bound, so that binding twice adds, not replaces. */
    private final Map<HashedWheelTimer, List<Timer>> lateness = new ConcurrentHashMap<>();

    /** @param timers the timers by bean name, looked up when the binder is bound */
    public WheelTimerMeterBinder(Supplier<Map<String, HashedWheelTimer>> timers) {
        this.timers = timers;
    }

    /** The timer of each {@code @WheelTimeout} run, from the observation of the run. */
    public static final String TASK = "wheel.timer.task";
    /** The long-task timer of the runs in progress, from the same observation. */
    public static final String TASK_ACTIVE = "wheel.timer.task.active";

    /**
     * A filter that gives {@value #TASK} and {@value #TASK_ACTIVE} their descriptions: Micrometer's
     * observation handler registers them without one. A description set elsewhere is kept.
     */
    public static MeterFilter taskMeterDescriptions() {
        return new MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                if (id.getDescription() != null) {
                    return id;
                }
                String description = switch (id.getName()) {
                    case TASK -> "Runs of @WheelTimeout methods, from the start of each run to its end";
                    case TASK_ACTIVE -> "@WheelTimeout runs in progress, and how long each has been running";
                    default -> null;
                };
                return description == null
                        ? id
                        : new Meter.Id(
                                id.getName(),
                                Tags.of(id.getTagsAsIterable()),
                                id.getBaseUnit(),
                                description,
                                id.getType());
            }
        };
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        timers.get().forEach((name, timer) -> bind(registry, name, timer));
    }

    private void bind(MeterRegistry registry, String name, HashedWheelTimer timer) {
        Tags tags = Tags.of("name", name);
        Gauge.builder("wheel.timer.pending", timer, HashedWheelTimer::pendingTimeouts)
                .description("Timeouts scheduled and not yet run or cancelled")
                .baseUnit("timeouts")
                .tags(tags)
                .register(registry);
        counter(
                registry,
                "wheel.timer.scheduled",
                "Timeouts accepted by newTimeout",
                "timeouts",
                timer,
                TimerStats::scheduled,
                tags);
        counter(registry, "wheel.timer.expired", "Timeouts that fired", "timeouts", timer, TimerStats::expired, tags);
        counter(
                registry,
                "wheel.timer.cancelled",
                "Timeouts cancelled before they fired, also by stop()",
                "timeouts",
                timer,
                TimerStats::cancelled,
                tags);
        counter(
                registry,
                "wheel.timer.rejected",
                "Timeouts refused because of max-pending-timeouts",
                "timeouts",
                timer,
                TimerStats::rejected,
                tags);
        counter(
                registry,
                "wheel.timer.failed",
                "Tasks that threw or that the task executor refused",
                "tasks",
                timer,
                TimerStats::failed,
                tags);
        TimeGauge.builder(
                        "wheel.timer.tick.lag",
                        timer,
                        TimeUnit.NANOSECONDS,
                        t -> t.stats().tickLag().toNanos())
                .description("How far the worker runs behind its tick schedule")
                .tags(tags)
                .register(registry);
        bindLateness(registry, timer, tags);
    }

    private void bindLateness(MeterRegistry registry, HashedWheelTimer timer, Tags tags) {
        Timer meter = Timer.builder("wheel.timer.lateness")
                .description("Time from a fired timeout's deadline to the start of its task")
                .tags(tags)
                .register(registry);
        List<Timer> meters = lateness.computeIfAbsent(timer, t -> {
            List<Timer> list = new CopyOnWriteArrayList<>();
            // Called on the thread that runs each fired task: one record per registry, nothing else.
            t.setLatenessListener(nanos -> {
                for (Timer m : list) {
                    m.record(nanos, TimeUnit.NANOSECONDS);
                }
            });
            return list;
        });
        if (!meters.contains(meter)) {
            meters.add(meter);
        }
    }

    private static void counter(
            MeterRegistry registry,
            String meter,
            String description,
            String unit,
            HashedWheelTimer timer,
            ToLongFunction<TimerStats> count,
            Tags tags) {
        FunctionCounter.builder(meter, timer, t -> count.applyAsLong(t.stats()))
                .description(description)
                .baseUnit(unit)
                .tags(tags)
                .register(registry);
    }
}
