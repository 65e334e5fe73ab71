package io.wheeltimer.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Lifecycle, more timers and lateness: every timer bean is stopped on close, the
 * prototype {@link HashedWheelTimer.Builder} bean carries the {@code wheel-timer.*} settings, and
 * {@code wheel.timer.lateness} counts every fired timeout of every timer.
 */
class TimerLifecycleTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WheelTimerAutoConfiguration.class))
            .withBean(ManualTicker.class, ManualTicker::new);

    @Nested
    class StoppedOnClose {

        @Test
        void aUserDefinedTimerIsShutdownAfterClose() {
            AtomicReference<HashedWheelTimer> auto = new AtomicReference<>();
            AtomicReference<HashedWheelTimer> own = new AtomicReference<>();
            runner.withUserConfiguration(OwnTimerWithoutDestroyMethod.class).run(context -> {
                auto.set(context.getBean("wheelTimer", HashedWheelTimer.class));
                own.set(context.getBean("ownTimer", HashedWheelTimer.class));
                own.get().start();
                assertThat(own.get().state()).isEqualTo(HashedWheelTimer.State.STARTED);
            });
            assertThat(own.get().state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
            assertThat(auto.get().state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
        }

        @Test
        void aTimerFromTheBuilderBeanIsShutdownAfterClose() {
            AtomicReference<HashedWheelTimer> built = new AtomicReference<>();
            runner.withUserConfiguration(SecondTimerFromTheBuilder.class).run(context -> {
                built.set(context.getBean("auditTimer", HashedWheelTimer.class));
                built.get().start();
            });
            assertThat(built.get().state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
        }
    }

    @Nested
    class TheBuilderBean {

        @Test
        void isPrototypeScoped() {
            runner.run(context -> assertThat(context.getBean(HashedWheelTimer.Builder.class))
                    .isNotSameAs(context.getBean(HashedWheelTimer.Builder.class)));
        }

        @Test
        void carriesTheWheelTimerSettingsAndTheTicker() {
            runner.withUserConfiguration(SecondTimerFromTheBuilder.class)
                    .withPropertyValues(
                            "wheel-timer.tick-duration=20ms",
                            "wheel-timer.ticks-per-wheel=100",
                            "wheel-timer.max-pending-timeouts=5",
                            "wheel-timer.hierarchical=false")
                    .run(context -> {
                        HashedWheelTimer audit = context.getBean("auditTimer", HashedWheelTimer.class);
                        assertThat(audit.name()).isEqualTo("audit");
                        assertThat(audit.tickDuration()).isEqualTo(Duration.ofMillis(20));
                        assertThat(audit.ticksPerWheel()).isEqualTo(128);
                        assertThat(audit.maxPendingTimeouts()).isEqualTo(5);
                        assertThat(audit.isHierarchical()).isFalse();
                        // The ticker: the timeout runs when the ManualTicker says so, not before.
                        AtomicReference<Boolean> ran = new AtomicReference<>(false);
                        audit.newTimeout(t -> ran.set(true), Duration.ofSeconds(5));
                        ManualTicker ticker = context.getBean(ManualTicker.class);
                        ticker.advance(Duration.ofMillis(4980));
                        assertThat(ran).hasValue(false);
                        ticker.advance(Duration.ofMillis(20));
                        assertThat(ran).hasValue(true);
                    });
        }

        @Test
        void isThereAlsoWhenTheApplicationDefinesItsOwnTimer() {
            runner.withUserConfiguration(OwnTimer.class)
                    .run(context ->
                            assertThat(context).doesNotHaveBean("wheelTimer").hasBean("wheelTimerBuilder"));
        }
    }

    @Nested
    class Lateness {

        @Test
        void countsEveryFiredTimeoutOfEveryTimer() {
            runner.withConfiguration(AutoConfigurations.of(WheelTimerMetricsAutoConfiguration.class))
                    .withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
                    .withUserConfiguration(SecondTimerFromTheBuilder.class)
                    .run(context -> {
                        HashedWheelTimer wheelTimer = context.getBean("wheelTimer", HashedWheelTimer.class);
                        HashedWheelTimer audit = context.getBean("auditTimer", HashedWheelTimer.class);
                        for (int i = 1; i <= 25; i++) {
                            wheelTimer.newTimeout(t -> {}, i * 10L, TimeUnit.MILLISECONDS);
                            audit.newTimeout(t -> {}, i * 10L, TimeUnit.MILLISECONDS);
                        }
                        wheelTimer.newTimeout(t -> {}, Duration.ofHours(1)).cancel();
                        wheelTimer.newTimeout(
                                t -> {
                                    throw new IllegalStateException("fails, still fired");
                                },
                                Duration.ofMillis(50));
                        for (int step = 0; step < 20; step++) {
                            context.getBean(ManualTicker.class).advance(Duration.ofMillis(100));
                        }

                        MeterRegistry meters = context.getBean(MeterRegistry.class);
                        Timer lateness = lateness(meters, "wheelTimer");
                        assertThat(lateness.count())
                                .isEqualTo(26)
                                .isEqualTo(wheelTimer.stats().expired());
                        assertThat(lateness(meters, "auditTimer").count())
                                .isEqualTo(25)
                                .isEqualTo(audit.stats().expired());
                        // Due at 10 ms steps on 100 ms ticks: each fires at most one tick late, never early.
                        assertThat(lateness.max(TimeUnit.MILLISECONDS)).isBetween(0.0, 100.0);
                        assertThat(lateness.totalTime(TimeUnit.MILLISECONDS)).isPositive();
                    });
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnTimerWithoutDestroyMethod {
        /** destroyMethod = "": Spring would not close it; the starter still stops it. */
        @Bean(destroyMethod = "", defaultCandidate = false)
        HashedWheelTimer ownTimer() {
            return HashedWheelTimer.builder().name("own").build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnTimer {
        @Bean
        HashedWheelTimer ownTimer() {
            return HashedWheelTimer.builder().name("own").build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SecondTimerFromTheBuilder {
        @Bean(defaultCandidate = false)
        HashedWheelTimer auditTimer(HashedWheelTimer.Builder builder) {
            return builder.name("audit").build();
        }
    }

    private static Timer lateness(MeterRegistry meters, String timer) {
        return meters.get("wheel.timer.lateness").tag("name", timer).timer();
    }
}
