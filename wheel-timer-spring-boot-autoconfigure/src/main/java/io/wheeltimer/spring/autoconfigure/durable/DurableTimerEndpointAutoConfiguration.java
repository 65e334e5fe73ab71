package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.spring.autoconfigure.WheelTimerEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * With the actuator and durable timeouts: the {@code "durable"} section of the {@code wheeltimer}
 * endpoint, and the {@code durabletimeouts} endpoint.
 */
@AutoConfiguration(after = DurableTimerAutoConfiguration.class)
@ConditionalOnClass(
        value = JdbcDurableTimer.class,
        name = {
            "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
            "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"
        })
@ConditionalOnBean(JdbcDurableTimer.class)
public final class DurableTimerEndpointAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnAvailableEndpoint(WheelTimerEndpoint.class)
    @ImportRuntimeHints(DurableTimerEndpointRuntimeHints.class)
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        DurableTimerEndpointContributor durableTimerEndpointContributor(JdbcDurableTimer durableTimer) {
            return new DurableTimerEndpointContributor(durableTimer);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnAvailableEndpoint(DurableTimeoutsEndpoint.class)
    @EnableConfigurationProperties(DurableTimeoutsEndpointProperties.class)
    static class DurableTimeoutsConfiguration {

        @Bean
        @ConditionalOnMissingBean
        DurableTimeoutsEndpoint durableTimeoutsEndpoint(
                JdbcDurableTimer durableTimer, DurableTimeoutsEndpointProperties properties) {
            return new DurableTimeoutsEndpoint(durableTimer, properties.getShowData(), properties.getRoles());
        }
    }
}
