package io.wheeltimer.spring.autoconfigure;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code wheelTimer} health component, when {@code spring-boot-health} is on the classpath:
 * with one {@link HashedWheelTimer} bean, its indicator; with several, a composite keyed by bean
 * name, so {@code /actuator/health/wheelTimer/{name}} answers for each (Boot's {@code db}
 * convention). {@code management.health.wheeltimer.enabled=false} turns it off.
 */
@AutoConfiguration(after = WheelTimerAutoConfiguration.class)
@ConditionalOnClass(
        name = {
            "org.springframework.boot.health.contributor.HealthIndicator",
            "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator"
        })
public final class WheelTimerHealthAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnEnabledHealthIndicator("wheeltimer")
    static class HealthConfiguration {

        /** The timers are those of this context when it starts (singletons: see {@link TimerBeans}). */
        @Bean
        @ConditionalOnBean(Timer.class) // a HashedWheelTimer bean may be declared as a Timer
        @ConditionalOnMissingBean(name = {"wheelTimerHealthIndicator", "wheelTimerHealthContributor"})
        HealthContributor wheelTimerHealthContributor(ListableBeanFactory beanFactory) {
            Map<String, HealthContributor> indicators = new LinkedHashMap<>();
            TimerBeans.in(beanFactory)
                    .get()
                    .forEach((name, timer) -> indicators.put(name, new WheelTimerHealthIndicator(name, timer)));
            return indicators.size() == 1
                    ? indicators.values().iterator().next()
                    : CompositeHealthContributor.fromMap(indicators);
        }
    }
}
