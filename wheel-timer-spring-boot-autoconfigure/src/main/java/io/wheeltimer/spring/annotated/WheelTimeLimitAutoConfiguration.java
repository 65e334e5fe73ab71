package io.wheeltimer.spring.annotated;

import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SearchStrategy;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * Auto-configures {@link io.wheeltimer.spring.WheelTimeLimit @WheelTimeLimit} on the timer that
 * {@link WheelTimerAutoConfiguration} provides (or the application's own). {@code wheel-timer.enabled=false}
 * turns it off with the rest.
 */
@AutoConfiguration(after = WheelTimerAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "wheel-timer.enabled", matchIfMissing = true)
public final class WheelTimeLimitAutoConfiguration {

    /** Only this context's: a post-processor in a parent context does not process this one's beans. */
    @Bean
    @ConditionalOnMissingBean(search = SearchStrategy.CURRENT)
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static WheelTimeLimitBeanPostProcessor wheelTimeLimitBeanPostProcessor() {
        return new WheelTimeLimitBeanPostProcessor();
    }
}
