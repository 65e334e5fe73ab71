package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.wheeltimer.jdbc.DurableTimer;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.spring.autoconfigure.WheelTimerEndpoint;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.util.ClassUtils;

/**
 * An application with the starter, a {@code DataSource}, Micrometer, the actuator and
 * {@code spring-boot-health}, but without {@code wheel-timer-jdbc} on the class path (its package
 * hidden with a {@link FilteredClassLoader}): it starts with its wheel timer, its meters, endpoint and
 * health, and nothing of durable timeouts.
 */
class WithoutTheDurableLibraryTest {

    /** Every auto-configuration the starter brings, read from this module's imports file. */
    private static final AutoConfigurations STARTER = AutoConfigurations.of(
            ImportCandidates.load(AutoConfiguration.class, WithoutTheDurableLibraryTest.class.getClassLoader())
                    .getCandidates()
                    .stream()
                    .filter(name -> name.startsWith("io.wheeltimer."))
                    .map(name -> ClassUtils.resolveClassName(name, WithoutTheDurableLibraryTest.class.getClassLoader()))
                    .toArray(Class<?>[]::new));

    @Test
    void anApplicationWithADataSourceStartsWithNoDurableBeans() {
        new ApplicationContextRunner()
                .withClassLoader(new FilteredClassLoader("io.wheeltimer.jdbc."))
                .withConfiguration(AutoConfigurations.of(
                        PropertyPlaceholderAutoConfiguration.class,
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        EndpointAutoConfiguration.class))
                .withConfiguration(STARTER)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues(
                        "spring.datasource.url=jdbc:h2:mem:without-durable;DB_CLOSE_DELAY=-1",
                        "management.endpoints.web.exposure.include=wheeltimer")
                .run(context -> {
                    assertThat(ClassUtils.isPresent(JdbcDurableTimer.class.getName(), context.getClassLoader()))
                            .as("the library is hidden")
                            .isFalse();
                    assertThat(context)
                            .hasNotFailed()
                            .hasSingleBean(DataSource.class)
                            .hasBean("wheelTimer")
                            .hasBean("wheelTimerHealthContributor")
                            .hasSingleBean(WheelTimerEndpoint.class);
                    assertThat(context)
                            .doesNotHaveBean(DurableTimer.class)
                            .doesNotHaveBean(JdbcDurableTimer.class)
                            .doesNotHaveBean(DurableTimerProperties.class)
                            .doesNotHaveBean(DurableTimerSchemaInitializer.class)
                            .doesNotHaveBean(DurableTimerLifecycle.class)
                            .doesNotHaveBean(DurableTimerTaskBeanPostProcessor.class)
                            .doesNotHaveBean(DurableTimerMetrics.class)
                            .doesNotHaveBean(DurableTimerHealthIndicator.class)
                            .doesNotHaveBean(DurableTimerEndpointContributor.class);

                    List<String> meters = context.getBean(MeterRegistry.class).getMeters().stream()
                            .map(meter -> meter.getId().getName())
                            .distinct()
                            .toList();
                    assertThat(meters)
                            .contains("wheel.timer.pending")
                            .noneMatch(name -> name.startsWith("wheel.timer.durable."));
                    WheelTimerEndpoint.TimersDescriptor endpoint =
                            context.getBean(WheelTimerEndpoint.class).timers();
                    assertThat(endpoint.timers()).containsOnlyKeys("wheelTimer");
                    assertThat(endpoint.sections()).as("no durable section").isEmpty();
                });
    }
}
