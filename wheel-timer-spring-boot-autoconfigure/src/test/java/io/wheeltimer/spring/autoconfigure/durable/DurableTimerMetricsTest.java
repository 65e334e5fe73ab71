package io.wheeltimer.spring.autoconfigure.durable;

import static io.wheeltimer.spring.autoconfigure.durable.DurableApps.awaitHolding;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.wheeltimer.jdbc.DurableTimerTask;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;

/**
 * The {@code wheel.timer.durable.*} meters after schedule, fire, cancel, retry and give-up, on H2
 * and PostgreSQL; the lateness of deadlines centuries past, capped so that its total stays right; and
 * each handler run observed as a deferred {@code @WheelTimeout} run is.
 */
class DurableTimerMetricsTest {

    static class Handlers {
        final AtomicInteger flakyRuns = new AtomicInteger();

        @DurableTimerTask("ok")
        public void ok(String key) {}

        /** Throws on its first run only. */
        @DurableTimerTask("flaky")
        public void flaky(String key) {
            if (flakyRuns.incrementAndGet() == 1) {
                throw new IllegalStateException("first run fails");
            }
        }

        @DurableTimerTask("broken")
        public void broken(String key) {
            throw new IllegalStateException("always fails");
        }
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void metersCountWhatTheTimerDid(Database database) {
        DurableApps.runner(database)
                .withConfiguration(AutoConfigurations.of(DurableTimerMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Handlers.class)
                .withPropertyValues("wheel-timer.durable.max-attempts=2")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    JdbcDurableTimer timer = context.getBean(JdbcDurableTimer.class);
                    for (String task : List.of("ok", "flaky", "broken")) {
                        assertThat(count(registry, "scheduled", task))
                                .as("registered at zero")
                                .isZero();
                    }
                    awaitHolding(timer);

                    timer.schedule("ok", "a", Duration.ofMillis(50));
                    timer.schedule("ok", "b", Duration.ofHours(1));
                    timer.schedule("ok", "c", Duration.ofHours(1));
                    assertThat(timer.cancel("ok", "c")).isTrue();
                    timer.schedule("flaky", "d", Duration.ZERO);
                    timer.schedule("broken", "e", Duration.ZERO);

                    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                        assertThat(count(registry, "fired", "ok")).isEqualTo(1);
                        assertThat(count(registry, "fired", "flaky")).isEqualTo(1);
                        assertThat(count(registry, "failed", "broken")).isEqualTo(1);
                    });
                    assertThat(count(registry, "scheduled", "ok")).isEqualTo(3);
                    assertThat(count(registry, "cancelled", "ok")).isEqualTo(1);
                    assertThat(count(registry, "retried", "flaky")).isEqualTo(1);
                    assertThat(count(registry, "retried", "broken")).isEqualTo(1);
                    assertThat(count(registry, "fired", "broken")).isZero();
                    assertThat(count(registry, "failed", "ok")).isZero();
                    assertThat(registry.get("wheel.timer.durable.lateness")
                                    .tag("task", "ok")
                                    .timer()
                                    .count())
                            .isEqualTo(1);
                    assertThat(registry.get("wheel.timer.durable.lateness")
                                    .tag("task", "flaky")
                                    .timer()
                                    .count())
                            .as("every run that started")
                            .isEqualTo(2);
                    assertThat(registry.get("wheel.timer.durable.lateness")
                                    .tag("task", "ok")
                                    .timer()
                                    .takeSnapshot()
                                    .histogramCounts())
                            .as("the buckets a dashboard draws")
                            .extracting(bucket -> (long) bucket.bucket(TimeUnit.MILLISECONDS))
                            .containsExactlyElementsOf(LatenessBuckets.BOUNDS.stream()
                                    .map(Duration::toMillis)
                                    .toList());
                    assertThat(registry.get("wheel.timer.durable.held").gauge().value())
                            .as("only b is held")
                            .isEqualTo(1.0);
                    assertThat(registry.get("wheel.timer.durable.held")
                                    .gauge()
                                    .getId()
                                    .getTags())
                            .isEmpty();
                    // The hourly count of rows no handler here knows: none in this table.
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> registry.get("wheel.timer.durable.unhandled")
                                            .gauge()
                                            .value()
                                    == 0.0);
                });
    }

    @Test
    void deadlinesCenturiesPastAddUpToAPositiveTotalOfADayEach() {
        DurableApps.runner(Database.H2)
                .withConfiguration(AutoConfigurations.of(DurableTimerMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Handlers.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    JdbcDurableTimer timer = DurableApps.holdingTimer(context);
                    int ancient = 50;
                    for (int i = 0; i < ancient; i++) {
                        timer.schedule("ok", "year-1000-" + i, Instant.parse("-1000-01-01T00:00:00Z"));
                    }
                    timer.schedule("ok", "1970", Instant.EPOCH);

                    await().atMost(Duration.ofSeconds(30)).until(() -> count(registry, "fired", "ok") == ancient + 1);
                    Timer lateness = registry.get("wheel.timer.durable.lateness")
                            .tag("task", "ok")
                            .timer();
                    assertThat(lateness.count()).isEqualTo(ancient + 1);
                    assertThat(lateness.totalTime(TimeUnit.DAYS))
                            .as("a day per recording, neither overflowed nor negative")
                            .isEqualTo(ancient + 1.0);
                    assertThat(lateness.max(TimeUnit.DAYS)).isEqualTo(1.0);
                });
    }

    @Test
    void withoutAMeterRegistryThereAreNoMeters() {
        DurableApps.runner(Database.H2)
                .withConfiguration(AutoConfigurations.of(DurableTimerMetricsAutoConfiguration.class))
                .withBean(Handlers.class)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(DurableTimerMetrics.class));
    }

    @Test
    void eachRunIsObservedAsWheelTimerTask() {
        List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context);
            }
        });
        DurableApps.runner(Database.H2)
                .withBean(ObservationRegistry.class, () -> observations)
                .withBean(Handlers.class)
                .withPropertyValues("wheel-timer.durable.max-attempts=1")
                .run(context -> {
                    JdbcDurableTimer timer = DurableApps.holdingTimer(context);
                    timer.schedule("ok", "a", Duration.ZERO);
                    timer.schedule("broken", "b", Duration.ZERO);
                    await().atMost(Duration.ofSeconds(30)).until(() -> stopped.size() == 2);

                    String ok = Handlers.class.getName() + ".ok(String)";
                    String broken = Handlers.class.getName() + ".broken(String)";
                    assertThat(stopped).allSatisfy(run -> {
                        assertThat(run.getName()).isEqualTo("wheel.timer.task");
                        assertThat(run.getLowCardinalityKeyValue("name").getValue())
                                .isEqualTo("wheelTimer");
                    });
                    assertThat(stopped)
                            .extracting(Observation.Context::getContextualName)
                            .containsExactlyInAnyOrder(ok, broken);
                    Observation.Context failed = stopped.stream()
                            .filter(run -> run.getContextualName().equals(broken))
                            .findFirst()
                            .orElseThrow();
                    assertThat(failed.getLowCardinalityKeyValue("task").getValue())
                            .isEqualTo(broken);
                    assertThat(failed.getError()).hasMessage("always fails");
                });
    }

    private static double count(MeterRegistry registry, String name, String task) {
        return registry.get("wheel.timer.durable." + name)
                .tag("task", task)
                .counter()
                .count();
    }
}
