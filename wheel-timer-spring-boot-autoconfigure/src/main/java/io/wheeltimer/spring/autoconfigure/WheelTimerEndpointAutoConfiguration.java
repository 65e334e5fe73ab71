package io.wheeltimer.spring.autoconfigure;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * The {@code wheeltimer} actuator endpoint, when the actuator is on the classpath, with the sections
 * of every {@link WheelTimerEndpointContributor} bean.
 */
@AutoConfiguration(after = WheelTimerAutoConfiguration.class)
@ConditionalOnClass(
        name = {
            "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
            "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"
        })
public final class WheelTimerEndpointAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnAvailableEndpoint(WheelTimerEndpoint.class)
    @ImportRuntimeHints(WheelTimerEndpointRuntimeHints.class)
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        WheelTimerEndpoint wheelTimerEndpoint(
                ListableBeanFactory beanFactory, ObjectProvider<WheelTimerEndpointContributor> contributors) {
            return new WheelTimerEndpoint(
                    TimerBeans.in(beanFactory),
                    () -> contributors.orderedStream().toList());
        }
    }
}
