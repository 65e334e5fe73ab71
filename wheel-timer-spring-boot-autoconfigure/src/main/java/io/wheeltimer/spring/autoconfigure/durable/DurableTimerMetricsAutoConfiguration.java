package io.wheeltimer.spring.autoconfigure.durable;

import io.micrometer.core.instrument.MeterRegistry;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code wheel.timer.durable.*} meters of the auto-configured durable timer, when the
 * application has a {@link MeterRegistry}: a {@link DurableTimerMetrics} listener, which the
 * timer's builder picks up, bound to the timer once every singleton exists.
 */
@AutoConfiguration(
        after = DurableTimerAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass({JdbcDurableTimer.class, MeterRegistry.class})
@ConditionalOnBean({MeterRegistry.class, JdbcDurableTimer.class})
public final class DurableTimerMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DurableTimerMetrics durableTimerMetrics(MeterRegistry registry) {
        return new DurableTimerMetrics(registry);
    }

    /** The held gauge and the zero meters of every task, once the timer exists. */
    @Bean
    SmartInitializingSingleton durableTimerMetricsBinding(DurableTimerMetrics metrics, JdbcDurableTimer durableTimer) {
        return () -> metrics.bindTo(durableTimer);
    }
}
