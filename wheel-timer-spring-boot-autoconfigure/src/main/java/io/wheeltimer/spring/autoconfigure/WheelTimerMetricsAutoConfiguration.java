package io.wheeltimer.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.config.MeterFilter;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters ({@code wheel.timer.*}) for every {@code HashedWheelTimer} bean, when the
 * application has a {@link MeterRegistry}. Ordered after Boot's metrics auto-configuration by name,
 * so Micrometer and Boot's metrics module stay optional; without that module, which binds
 * {@link MeterBinder} beans, the binder is bound to every registry here. The meters that the
 * observation of {@code @WheelTimeout} runs produces get their descriptions from a {@link MeterFilter}
 * bean, which Boot's metrics module applies.
 */
@AutoConfiguration(
        after = WheelTimerAutoConfiguration.class,
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass(MeterBinder.class)
@ConditionalOnBean(MeterRegistry.class)
public final class WheelTimerMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    WheelTimerMeterBinder wheelTimerMeterBinder(ListableBeanFactory beanFactory) {
        return new WheelTimerMeterBinder(TimerBeans.in(beanFactory));
    }

    /**
     * Describes {@code wheel.timer.task} and {@code wheel.timer.task.active}, which Micrometer's
     * observation handler registers without a description.
     */
    @Bean
    MeterFilter wheelTimerTaskMeterDescriptions() {
        return WheelTimerMeterBinder.taskMeterDescriptions();
    }

    @Bean
    @ConditionalOnMissingBean(
            type = "org.springframework.boot.micrometer.metrics.autoconfigure.MeterRegistryPostProcessor")
    SmartInitializingSingleton wheelTimerMeterBinding(
            WheelTimerMeterBinder binder, ObjectProvider<MeterRegistry> registries) {
        return () -> registries.orderedStream().forEach(binder::bindTo);
    }
}
