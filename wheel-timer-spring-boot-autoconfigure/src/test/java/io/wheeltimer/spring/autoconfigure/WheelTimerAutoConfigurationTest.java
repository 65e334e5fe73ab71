package io.wheeltimer.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.startsWith;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timer;
import io.wheeltimer.spring.annotated.WheelTimeoutBeanPostProcessor;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The auto-configured timer: defaults, properties and back-off. The values it refuses, with the
 * report Boot prints for each, are in {@link StartupFailureReportTest}.
 */
class WheelTimerAutoConfigurationTest {

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WheelTimerAutoConfiguration.class));

    @Test
    void providesAWheelTimerBeanInjectableAsTimerWithNettysDefaults() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(HashedWheelTimer.class).hasBean("wheelTimer");
            HashedWheelTimer timer = context.getBean(HashedWheelTimer.class);
            assertThat(context.getBean(Timer.class)).isSameAs(timer);
            assertThat(timer.tickDuration()).isEqualTo(Duration.ofMillis(100));
            assertThat(timer.ticksPerWheel()).isEqualTo(512);
            assertThat(timer.maxPendingTimeouts()).isZero();
            assertThat(timer.isHierarchical()).isTrue();
            assertThat(timer.name()).isEqualTo("wheel-timer");
            assertThat(timer.state()).isEqualTo(HashedWheelTimer.State.INIT);
        });
    }

    @Test
    void bindsEveryProperty() {
        runner.withPropertyValues(
                        "wheel-timer.tick-duration=10ms",
                        "wheel-timer.ticks-per-wheel=100",
                        "wheel-timer.max-pending-timeouts=1000",
                        "wheel-timer.hierarchical=false",
                        "wheel-timer.thread-name=deadlines")
                .run(context -> {
                    HashedWheelTimer timer = context.getBean(HashedWheelTimer.class);
                    assertThat(timer.tickDuration()).isEqualTo(Duration.ofMillis(10));
                    assertThat(timer.ticksPerWheel())
                            .as("rounded up to a power of two")
                            .isEqualTo(128);
                    assertThat(timer.maxPendingTimeouts()).isEqualTo(1000);
                    assertThat(timer.isHierarchical()).isFalse();
                    assertThat(timer.name()).isEqualTo("deadlines");
                });
    }

    @Test
    void aTickUnderOneMillisecondIsRaisedToOneMillisecondAsTheCoreAndNettyDo() {
        runner.withPropertyValues("wheel-timer.tick-duration=500us").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(HashedWheelTimer.class).tickDuration()).isEqualTo(Duration.ofMillis(1));
        });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnTimer() {
        runner.withUserConfiguration(UserTimer.class).run(context -> {
            assertThat(context).hasSingleBean(Timer.class).doesNotHaveBean("wheelTimer");
            assertThat(context.getBean(Timer.class)).isSameAs(context.getBean("myTimer"));
        });
    }

    @Test
    void enabledFalseTurnsItOff() {
        runner.withPropertyValues("wheel-timer.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(Timer.class);
            assertThat(context).doesNotHaveBean(WheelTimeoutBeanPostProcessor.class);
        });
    }

    @Test
    void runsTasksOnTheNamedExecutor() {
        runner.withUserConfiguration(TimerExecutor.class, ManualTime.class)
                .withPropertyValues("wheel-timer.executor=timerTasks")
                .run(context -> {
                    HashedWheelTimer timer = context.getBean(HashedWheelTimer.class);
                    AtomicReference<String> thread = new AtomicReference<>();
                    timer.newTimeout(t -> thread.set(Thread.currentThread().getName()), 1, TimeUnit.SECONDS);
                    context.getBean(ManualTicker.class).advance(Duration.ofSeconds(1));
                    await().atMost(Duration.ofSeconds(30)).untilAtomic(thread, startsWith("timer-task"));
                });
    }

    @Test
    void usesTheTickerBeanForTime() {
        runner.withUserConfiguration(ManualTime.class).run(context -> {
            HashedWheelTimer timer = context.getBean(HashedWheelTimer.class);
            AtomicReference<Boolean> ran = new AtomicReference<>(false);
            timer.newTimeout(t -> ran.set(true), Duration.ofMinutes(30));
            context.getBean(ManualTicker.class).advance(Duration.ofMinutes(30));
            assertThat(ran).hasValue(true);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class UserTimer {
        @Bean(destroyMethod = "stop")
        HashedWheelTimer myTimer() {
            return HashedWheelTimer.builder().name("mine").build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TimerExecutor {
        @Bean(destroyMethod = "shutdownNow")
        ExecutorService timerTasks() {
            return Executors.newSingleThreadExecutor(r -> new Thread(r, "timer-task"));
        }

        @Bean
        Executor unrelated() {
            return Runnable::run;
        }
    }
}
