package io.wheeltimer.spring.autoconfigure;

import io.wheeltimer.spring.actuate.WheelTimerHealthIndicator;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code wheelTimer} health indicator, when {@code spring-boot-health} is on the classpath;
 * {@code management.health.wheeltimer.enabled=false} turns it off.
 */
@AutoConfiguration(after = WheelTimerAutoConfiguration.class)
@ConditionalOnClass(name = {
        "org.springframework.boot.health.contributor.HealthIndicator",
        "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator"})
public final class WheelTimerHealthAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("wheeltimer")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "wheelTimerHealthIndicator")
        WheelTimerHealthIndicator wheelTimerHealthIndicator(ListableBeanFactory beanFactory) {
            return new WheelTimerHealthIndicator(TimerBeans.in(beanFactory));
        }
    }
}
