package io.wheeltimer.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.servlet.function.RouterFunction;

/** When the dashboard is served, and with what. */
class DashboardAutoConfigurationTest {

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(WheelTimerAutoConfiguration.class, DashboardAutoConfiguration.class));

    @Test
    void servedInAServletApplicationWithTheInMemoryTimersAlone() {
        web.withClassLoader(new FilteredClassLoader(JdbcDurableTimer.class)).run(context -> {
            assertThat(context).hasNotFailed().hasBean("wheelTimerDashboardRoutes");
            assertThat(context).doesNotHaveBean(DurableSections.class);
        });
    }

    @Test
    void offWhenDisabled() {
        web.withPropertyValues("wheel-timer.dashboard.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(RouterFunction.class));
    }

    @Test
    void notServedOutsideAWebApplication() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(WheelTimerAutoConfiguration.class, DashboardAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(RouterFunction.class));
    }

    @Test
    void aBadPathOrRefreshStopsTheStartNamingTheProperty() {
        web.withPropertyValues("wheel-timer.dashboard.path=wheel-timer/")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("wheel-timer.dashboard.path")
                        .hasMessageContaining("'wheel-timer/'"));
        web.withPropertyValues("wheel-timer.dashboard.refresh=10ms")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("wheel-timer.dashboard.refresh must be at least 100ms, was PT0.01S"));
    }
}
