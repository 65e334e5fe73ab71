package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code wheelTimerDurable} health component, when {@code spring-boot-health} is on the class
 * path. {@code management.health.wheeltimerdurable.enabled=false} turns it off.
 */
@AutoConfiguration(after = DurableTimerAutoConfiguration.class)
@ConditionalOnClass(
        value = JdbcDurableTimer.class,
        name = {
            "org.springframework.boot.health.contributor.HealthIndicator",
            "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator"
        })
@ConditionalOnBean(JdbcDurableTimer.class)
public final class DurableTimerHealthAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("wheeltimerdurable")
    static class HealthConfiguration {

        /** Named so that its component is {@code wheelTimerDurable}. */
        @Bean
        @ConditionalOnMissingBean(name = "wheelTimerDurableHealthIndicator")
        DurableTimerHealthIndicator wheelTimerDurableHealthIndicator(JdbcDurableTimer durableTimer) {
            return new DurableTimerHealthIndicator(durableTimer);
        }
    }
}
