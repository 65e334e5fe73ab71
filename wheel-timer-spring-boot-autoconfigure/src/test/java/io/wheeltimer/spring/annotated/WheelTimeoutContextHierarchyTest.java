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
import org.springframework.context.ApplicationContext;
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
                .run(parent -> childOf(parent)
                        .withBean(ManualTicker.class, ManualTicker::new)
                        .run(child -> assertTheCallRunsASecondLater(child, child.getBean(ManualTicker.class))));
    }

    @Test
    void childDefersCallsWhenTheParentIsAutoConfiguredToo() {
        autoConfigured
                .withBean(ManualTicker.class, ManualTicker::new)
                .run(parent -> childOf(parent).run(child -> {
                    assertThat(child).hasNotFailed();
                    assertTheCallRunsASecondLater(child, parent.getBean(ManualTicker.class));
                }));
    }

    @Test
    void childUsesATimerDefinedInTheParent() {
        new ApplicationContextRunner()
                .withUserConfiguration(ParentTimer.class)
                .run(parent -> childOf(parent).run(child -> {
                    assertThat(child).hasNotFailed();
                    child.getBean(Task.class).run("x");
                    assertThat(parent.getBean(HashedWheelTimer.class).stats().scheduled())
                            .isEqualTo(1);

                    parent.getBean(ManualTicker.class).advance(Duration.ofSeconds(1));
                    assertThat(child.getBean(Calls.class).methods()).containsExactly("run");
                }));
    }

    /** An auto-configured child of {@code parent}, with a {@link Task} bean. */
    private ApplicationContextRunner childOf(ApplicationContext parent) {
        return autoConfigured
                .withParent(parent)
                .withBean(Calls.class, Calls::new)
                .withBean(Task.class);
    }

    /** A call of the child's task does not run now, and runs once {@code ticker} moved a second. */
    private static void assertTheCallRunsASecondLater(ApplicationContext child, ManualTicker ticker) {
        child.getBean(Task.class).run("x");
        assertThat(child.getBean(Calls.class).all()).isEmpty();

        ticker.advance(Duration.ofSeconds(1));
        assertThat(child.getBean(Calls.class).methods()).containsExactly("run");
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
