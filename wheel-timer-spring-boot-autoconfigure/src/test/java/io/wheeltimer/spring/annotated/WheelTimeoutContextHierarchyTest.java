package io.wheeltimer.spring.annotated;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.spring.WheelTimeout;
import io.wheeltimer.spring.annotated.WheelTimeoutFixtures.Calls;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.testing.ManualTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link WheelTimeout @WheelTimeout} in a child context (Spring Cloud's bootstrap context,
 * {@code SpringApplicationBuilder.child(...)}, a servlet context under a root context).
 */
class WheelTimeoutContextHierarchyTest {

    private final ApplicationContextRunner autoConfigured =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WheelTimerAutoConfiguration.class));

    @Test
    void childWithTheAutoConfigurationUnderAPlainParentDefersCalls() {
        new ApplicationContextRunner()
                .run(parent -> autoConfigured
                        .withParent(parent)
                        .withBean(ManualTicker.class, ManualTicker::new)
                        .withBean(Calls.class, Calls::new)
                        .withBean(Task.class)
                        .run(child -> {
                            child.getBean(Task.class).run("x");
                            assertThat(child.getBean(Calls.class).all()).isEmpty();

                            child.getBean(ManualTicker.class).advance(Duration.ofSeconds(1));
                            assertThat(child.getBean(Calls.class).methods()).containsExactly("run");
                        }));
    }

    @Test
    void childDefersCallsWhenTheParentIsAutoConfiguredToo() {
        autoConfigured
                .withBean(ManualTicker.class, ManualTicker::new)
                .run(parent -> autoConfigured
                        .withParent(parent)
                        .withBean(Calls.class, Calls::new)
                        .withBean(Task.class)
                        .run(child -> {
                            assertThat(child).hasNotFailed();
                            child.getBean(Task.class).run("x");
                            assertThat(child.getBean(Calls.class).all()).isEmpty();

                            parent.getBean(ManualTicker.class).advance(Duration.ofSeconds(1));
                            assertThat(child.getBean(Calls.class).methods()).containsExactly("run");
                        }));
    }

    @Test
    void childUsesATimerDefinedInTheParent() {
        new ApplicationContextRunner()
                .withUserConfiguration(ParentTimer.class)
                .run(parent -> autoConfigured
                        .withParent(parent)
                        .withBean(Calls.class, Calls::new)
                        .withBean(Task.class)
                        .run(child -> {
                            assertThat(child).hasNotFailed();
                            child.getBean(Task.class).run("x");
                            assertThat(parent.getBean(HashedWheelTimer.class)
                                            .stats()
                                            .scheduled())
                                    .isEqualTo(1);

                            parent.getBean(ManualTicker.class).advance(Duration.ofSeconds(1));
                            assertThat(child.getBean(Calls.class).methods()).containsExactly("run");
                        }));
    }

    static class Task {
        final Calls calls;

        Task(Calls calls) {
            this.calls = calls;
        }

        @WheelTimeout("1s")
        public void run(String what) {
            calls.record("run", what);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ParentTimer {
        @Bean
        ManualTicker ticker() {
            return new ManualTicker();
        }

        @Bean(destroyMethod = "stop")
        HashedWheelTimer parentTimer(ManualTicker ticker) {
            return HashedWheelTimer.builder()
                    .name("parent-wheel")
                    .ticker(ticker)
                    .build();
        }
    }
}
