package io.wheeltimer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** On context close the timer stops after the await period; what never ran is logged at WARN. Real time. */
@ExtendWith(OutputCaptureExtension.class)
class GracefulShutdownTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(WheelTimerAutoConfiguration.class))
            .withPropertyValues("wheel-timer.tick-duration=10ms");

    @Test
    void timeoutsDueWithinTheAwaitPeriodStillRunTheRestAreCancelledAndCounted(CapturedOutput output) {
        AtomicBoolean soonRan = new AtomicBoolean();
        AtomicBoolean laterRan = new AtomicBoolean();
        AtomicReference<HashedWheelTimer> timer = new AtomicReference<>();
        runner.withPropertyValues("wheel-timer.shutdown.await-termination-period=5s").run(context -> {
            timer.set(context.getBean(HashedWheelTimer.class));
            timer.get().newTimeout(t -> soonRan.set(true), Duration.ofMillis(300));
            timer.get().newTimeout(t -> laterRan.set(true), Duration.ofHours(1));
        });
        // The context is closed now.
        assertThat(soonRan).as("due within the await period").isTrue();
        assertThat(laterRan).isFalse();
        assertThat(timer.get().state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
        assertThat(timer.get().stats().cancelled()).isEqualTo(1);
        assertThat(output).contains("WARN").contains("1 pending timeouts never ran");
    }

    @Test
    void withoutAnAwaitPeriodTheTimerStopsAtOnce(CapturedOutput output) {
        AtomicBoolean ran = new AtomicBoolean();
        AtomicReference<HashedWheelTimer> timer = new AtomicReference<>();
        long closedIn = System.nanoTime();
        runner.run(context -> {
            timer.set(context.getBean(HashedWheelTimer.class));
            timer.get().newTimeout(t -> ran.set(true), Duration.ofSeconds(20));
            timer.get().newTimeout(t -> ran.set(true), Duration.ofSeconds(30));
        });
        assertThat(Duration.ofNanos(System.nanoTime() - closedIn)).isLessThan(Duration.ofSeconds(15));
        assertThat(ran).isFalse();
        assertThat(timer.get().state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
        assertThat(output).contains("2 pending timeouts never ran");
    }

    @Test
    void nothingPendingStopsQuietly(CapturedOutput output) {
        AtomicReference<HashedWheelTimer> timer = new AtomicReference<>();
        runner.withPropertyValues("wheel-timer.shutdown.await-termination-period=10s")
                .run(context -> timer.set(context.getBean(HashedWheelTimer.class)));
        assertThat(timer.get().state()).isEqualTo(HashedWheelTimer.State.SHUTDOWN);
        assertThat(output).doesNotContain("never ran");
    }
}
