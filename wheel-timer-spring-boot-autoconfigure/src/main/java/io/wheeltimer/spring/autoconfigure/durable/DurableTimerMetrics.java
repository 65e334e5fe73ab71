package io.wheeltimer.spring.autoconfigure.durable;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.DurableTimerListener;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Micrometer meters of a durable timer, tag {@code task}: the counters
 * {@code wheel.timer.durable.scheduled}, {@code .fired} (runs that committed), {@code .cancelled},
 * {@code .retried} and {@code .failed} (given up), and the timer {@code wheel.timer.durable.lateness}
 * (from a deadline to the start of its handler, with the histogram buckets of {@link LatenessBuckets});
 * and, once {@linkplain #bindTo bound} to the timer,
 * the gauges {@code wheel.timer.durable.held} (no tag: the timeouts this instance holds) and
 * {@code wheel.timer.durable.unhandled} (no tag: the pending timeouts of tasks no handler here knows,
 * as the hourly count found them; -1 before it). Register it
 * as a listener on the timer's builder.
 */
public final class DurableTimerMetrics implements DurableTimerListener {

    static final String PREFIX = "wheel.timer.durable.";

    private final MeterRegistry registry;
    private final Map<String, TaskMeters> byTask = new ConcurrentHashMap<>();

    public DurableTimerMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry must not be null");
    }

    /** Registers the gauge of what {@code timer} holds, and every task's meters at zero. */
    public void bindTo(JdbcDurableTimer timer) {
        Gauge.builder(PREFIX + "held", timer, JdbcDurableTimer::held)
                .description("Durable timeouts this instance holds")
                .baseUnit("timeouts")
                .register(registry);
        Gauge.builder(PREFIX + "unhandled", timer, t ->
                        (double) t.unhandledCountedHourly().orElse(-1))
                .description("Pending durable timeouts of tasks no handler on this instance knows, as counted"
                        + " hourly; -1 before the first count")
                .baseUnit("timeouts")
                .register(registry);
        timer.tasks().forEach(this::meters);
    }

    @Override
    public void scheduled(String task) {
        meters(task).scheduled.increment();
    }

    @Override
    public void cancelled(String task) {
        meters(task).cancelled.increment();
    }

    @Override
    public void started(DurableTimeout timeout, Duration lateness) {
        meters(timeout.task()).lateness.record(lateness.isNegative() ? Duration.ZERO : lateness);
    }

    @Override
    public void fired(String task) {
        meters(task).fired.increment();
    }

    @Override
    public void retried(String task, Throwable error) {
        meters(task).retried.increment();
    }

    @Override
    public void failed(String task, Throwable error) {
        meters(task).failed.increment();
    }

    private TaskMeters meters(String task) {
        return byTask.computeIfAbsent(task, name -> new TaskMeters(registry, name));
    }

    /** The meters of one task, registered once. */
    private static final class TaskMeters {
        final Counter scheduled;
        final Counter fired;
        final Counter cancelled;
        final Counter retried;
        final Counter failed;
        final Timer lateness;

        TaskMeters(MeterRegistry registry, String task) {
            scheduled = counter(registry, "scheduled", task, "Durable timeouts scheduled or rescheduled");
            fired = counter(registry, "fired", task, "Durable timeouts whose handler ran and committed");
            cancelled = counter(registry, "cancelled", task, "Pending durable timeouts cancelled");
            retried = counter(registry, "retried", task, "Runs that failed and will run again");
            failed = counter(registry, "failed", task, "Durable timeouts given up after their last allowed run failed");
            lateness = Timer.builder(PREFIX + "lateness")
                    .description("Time from a durable timeout's deadline to the start of its handler")
                    .tag("task", task)
                    .serviceLevelObjectives(LatenessBuckets.BOUNDS.toArray(Duration[]::new))
                    .register(registry);
        }

        private static Counter counter(MeterRegistry registry, String name, String task, String description) {
            return Counter.builder(PREFIX + name)
                    .description(description)
                    .baseUnit("timeouts")
                    .tag("task", task)
                    .register(registry);
        }
    }
}
