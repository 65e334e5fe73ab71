package io.wheeltimer.spring.annotated;

import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.THIRTY_SECONDS;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.WORKER;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.calls;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.ticker;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.timer;
import static io.wheeltimer.spring.annotated.WheelTimeoutFixtures.wheelTimeoutRunner;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.TimeoutInfo;
import io.wheeltimer.Timer;
import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.AuditTimer;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Call;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Calls;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Delays;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;

/**
 * Which timer bean runs a {@code @WheelTimeout} call: the named one (trimmed), else the one
 * {@code @Autowired Timer} gets.
 */
class WheelTimeoutTimerChoiceTest {

    private final ApplicationContextRunner runner = wheelTimeoutRunner();

    @Test
    void timerAttributePicksTheNamedTimerBean() {
        runner.withUserConfiguration(TwoTimers.class)
                .withBean(OnOtherTimer.class)
                .run(context -> {
                    assertThat(context).doesNotHaveBean("wheelTimer"); // backs off for the user's timers
                    HashedWheelTimer main = context.getBean("main", HashedWheelTimer.class);
                    HashedWheelTimer other = context.getBean("other", HashedWheelTimer.class);

                    context.getBean(OnOtherTimer.class).run("x");

                    assertThat(other.stats().scheduled()).isEqualTo(1);
                    assertThat(main.stats().scheduled()).isZero();
                    assertThat(other.upcoming(10))
                            .extracting(TimeoutInfo::task)
                            .containsExactly(OnOtherTimer.class.getName() + ".run(String)");
                    ticker(context).advance(Duration.ofSeconds(1));
                    assertThat(calls(context).all()).containsExactly(new Call("run", List.of("x"), "other-wheel"));
                });
    }

    @Test
    void withoutTimerAttributeThePrimaryTimerIsUsed() {
        runner.withUserConfiguration(TwoTimersMainPrimary.class)
                .withBean(Delays.class)
                .run(context -> {
                    HashedWheelTimer main = context.getBean("main", HashedWheelTimer.class);
                    HashedWheelTimer other = context.getBean("other", HashedWheelTimer.class);

                    context.getBean(Delays.class).simple();

                    assertThat(main.stats().scheduled()).isEqualTo(1);
                    assertThat(other.stats().scheduled()).isZero();
                    ticker(context).advance(THIRTY_SECONDS);
                    assertThat(calls(context).all()).extracting(Call::thread).containsExactly("main-wheel");
                });
    }

    @Test
    void withoutTimerAttributeTheOnlyUserTimerIsUsed() {
        runner.withUserConfiguration(OneUserTimer.class).withBean(Delays.class).run(context -> {
            assertThat(context).doesNotHaveBean("wheelTimer");

            context.getBean(Delays.class).simple();

            assertThat(context.getBean("mine", HashedWheelTimer.class).stats().scheduled())
                    .isEqualTo(1);
            ticker(context).advance(THIRTY_SECONDS);
            assertThat(calls(context).all()).extracting(Call::thread).containsExactly("my-wheel");
        });
    }

    @Test
    void aSecondTimerThatIsNoDefaultCandidateLeavesCallsOnWheelTimerAsAutowiringDoes() {
        runner.withUserConfiguration(AuditTimer.class)
                .withBean(Delays.class)
                .withBean(OnAuditTimer.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    HashedWheelTimer wheelTimer = context.getBean("wheelTimer", HashedWheelTimer.class);
                    HashedWheelTimer auditTimer = context.getBean("auditTimer", HashedWheelTimer.class);
                    assertThat(context.getBeanProvider(Timer.class).getIfUnique())
                            .as("what @Autowired Timer gets")
                            .isSameAs(wheelTimer);

                    context.getBean(Delays.class).simple();
                    context.getBean(OnAuditTimer.class).run("x");

                    assertThat(wheelTimer.upcoming(10))
                            .extracting(TimeoutInfo::task)
                            .containsExactly(Delays.class.getName() + ".simple()");
                    assertThat(auditTimer.upcoming(10))
                            .extracting(TimeoutInfo::task)
                            .containsExactly(OnAuditTimer.class.getName() + ".run(String)");
                    ticker(context).advance(THIRTY_SECONDS);
                    assertThat(calls(context).all())
                            .extracting(Call::method, Call::thread)
                            .containsExactlyInAnyOrder(tuple("run", "audit"), tuple("simple", WORKER));
                });
    }

    @Test
    void aPrimaryTimerIsUsedOverAnotherDefaultCandidate() {
        runner.withUserConfiguration(TwoTimersMainPrimary.class, AuditTimer.class)
                .withBean(Delays.class)
                .run(context -> {
                    context.getBean(Delays.class).simple();

                    assertThat(context.getBean("main", HashedWheelTimer.class)
                                    .stats()
                                    .scheduled())
                            .isEqualTo(1);
                    assertThat(context.getBean("auditTimer", HashedWheelTimer.class)
                                    .stats()
                                    .scheduled())
                            .isZero();
                });
    }

    @Test
    void theTimerAttributeIsTrimmed() {
        runner.withUserConfiguration(TwoTimers.class)
                .withBean(OnOtherTimerWithSpaces.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(OnOtherTimerWithSpaces.class).run("x");

                    assertThat(context.getBean("other", HashedWheelTimer.class)
                                    .stats()
                                    .scheduled())
                            .isEqualTo(1);
                });
    }

    // --- user beans ---------------------------------------------------------------------------

    static class OnOtherTimer {
        final Calls calls;

        OnOtherTimer(Calls calls) {
            this.calls = calls;
        }

        @WheelTimeout(delay = "1s", timer = "other")
        public void run(String what) {
            calls.record("run", what);
        }
    }

    /** The timer {@code other}, beside a {@code main} one. */
    @Configuration(proxyBeanMethods = false)
    static class OtherTimer {
        @Bean(destroyMethod = "stop")
        HashedWheelTimer other(ManualTicker ticker) {
            return HashedWheelTimer.builder().name("other-wheel").ticker(ticker).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Import(OtherTimer.class)
    static class TwoTimers {
        @Bean(destroyMethod = "stop")
        HashedWheelTimer main(ManualTicker ticker) {
            return HashedWheelTimer.builder().name("main-wheel").ticker(ticker).build();
        }
    }

    static class OnAuditTimer {
        final Calls calls;

        OnAuditTimer(Calls calls) {
            this.calls = calls;
        }

        @WheelTimeout(delay = "1s", timer = "auditTimer")
        public void run(String what) {
            calls.record("run", what);
        }
    }

    static class OnOtherTimerWithSpaces {
        @WheelTimeout(delay = "1s", timer = " other ")
        public void run(String what) {}
    }

    @Configuration(proxyBeanMethods = false)
    @Import(OtherTimer.class)
    static class TwoTimersMainPrimary {
        @Bean(destroyMethod = "stop")
        @Primary
        HashedWheelTimer main(ManualTicker ticker) {
            return HashedWheelTimer.builder().name("main-wheel").ticker(ticker).build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OneUserTimer {
        @Bean(destroyMethod = "stop")
        HashedWheelTimer mine(ManualTicker ticker) {
            return HashedWheelTimer.builder().name("my-wheel").ticker(ticker).build();
        }
    }
}
