package io.wheeltimer.spring.autoconfigure;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Ticker;
import io.wheeltimer.Timer;
import io.wheeltimer.spring.annotated.WheelTimeoutBeanPostProcessor;
import io.wheeltimer.spring.annotated.WheelTimeoutTaskExecutor;
import java.time.Duration;
import java.util.concurrent.Executor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanNotOfRequiredTypeException;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SearchStrategy;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.context.annotation.Scope;

/**
 * Auto-configures a {@link HashedWheelTimer} bean named {@code wheelTimer} from the
 * {@code wheel-timer.*} properties (unless the application defines its own {@link Timer}), and
 * {@link io.wheeltimer.spring.WheelTimeout @WheelTimeout}, a prototype {@link HashedWheelTimer.Builder}
 * bean set from the same properties for further timers, and the stop of every timer bean when the
 * context closes. {@code wheel-timer.enabled=false} turns all off. A {@link Ticker} bean, if there
 * is exactly one, replaces the system clock (for tests).
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "wheel-timer.enabled", matchIfMissing = true)
@EnableConfigurationProperties(WheelTimerProperties.class)
public final class WheelTimerAutoConfiguration {

    /** Only this context's: a post-processor in a parent context does not process this one's beans. */
    @Bean
    @ConditionalOnMissingBean(search = SearchStrategy.CURRENT)
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static WheelTimeoutBeanPostProcessor wheelTimeoutBeanPostProcessor() {
        return new WheelTimeoutBeanPostProcessor();
    }

    /**
     * A new builder for each injection point, set from {@code wheel-timer.*} (tick, wheel size,
     * pending limit, layout, ticker) and with a {@link WheelTimeoutTaskExecutor}, for the
     * application's further timers. Name each timer.
     */
    @Bean
    @Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
    @ConditionalOnMissingBean
    HashedWheelTimer.Builder wheelTimerBuilder(WheelTimerProperties properties, ObjectProvider<Ticker> ticker) {
        return TimerConfiguration.configuredBuilder(properties, ticker);
    }

    /** Stops every {@code HashedWheelTimer} bean when the context closes, after the await period. */
    @Bean
    WheelTimerShutdown wheelTimerShutdown(
            ApplicationContext context,
            WheelTimerProperties properties,
            ObjectProvider<Ticker> ticker,
            ObjectProvider<WheelTimeoutBeanPostProcessor> postProcessor) {
        Duration period = properties.getShutdown().getAwaitTerminationPeriod();
        if (period == null || period.isNegative()) {
            throw new InvalidConfigurationPropertyValueException(
                    "wheel-timer.shutdown.await-termination-period", period, "must be 0s or longer");
        }
        return new WheelTimerShutdown(context, period, ticker.getIfUnique(Ticker::system), postProcessor.getIfUnique());
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(Timer.class)
    static class TimerConfiguration {

        /** Stopped by {@link WheelTimerShutdown} when the context closes; {@code close()} as a fallback. */
        @Bean
        HashedWheelTimer wheelTimer(
                WheelTimerProperties properties, BeanFactory beanFactory, ObjectProvider<Ticker> ticker) {
            Executor executor = executor(properties, beanFactory);
            HashedWheelTimer.Builder builder = configuredBuilder(properties, ticker)
                    .name(threadName(properties))
                    .taskExecutor(new WheelTimeoutTaskExecutor(executor != null ? executor : Runnable::run));
            try {
                return builder.build();
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigurationPropertyValueException(
                        "wheel-timer.tick-duration",
                        properties.getTickDuration(),
                        "tick-duration times ticks-per-wheel (" + properties.getTicksPerWheel()
                                + ") must fit in a long of nanoseconds: " + e.getMessage());
            }
        }

        static HashedWheelTimer.Builder configuredBuilder(
                WheelTimerProperties properties, ObjectProvider<Ticker> ticker) {
            return HashedWheelTimer.builder()
                    .tickDuration(tickDuration(properties))
                    .ticksPerWheel(ticksPerWheel(properties))
                    .maxPendingTimeouts(properties.getMaxPendingTimeouts())
                    .hierarchical(properties.isHierarchical())
                    .ticker(ticker.getIfUnique(Ticker::system))
                    .taskExecutor(new WheelTimeoutTaskExecutor());
        }

        private static String threadName(WheelTimerProperties properties) {
            String name = properties.getThreadName();
            if (name == null || name.isBlank()) {
                throw new InvalidConfigurationPropertyValueException(
                        "wheel-timer.thread-name", name, "must not be blank");
            }
            return name;
        }

        private static Duration tickDuration(WheelTimerProperties properties) {
            Duration tick = properties.getTickDuration();
            // The core's rule, Netty's: a tick under 1 ms is raised to 1 ms with a warning.
            if (tick == null || tick.isNegative() || tick.isZero()) {
                throw new InvalidConfigurationPropertyValueException(
                        "wheel-timer.tick-duration",
                        tick,
                        "must be positive (a duration such as 1ms, 100ms, 1s or PT0.1S; under 1ms is raised to"
                                + " 1ms, as Netty's HashedWheelTimer does)");
            }
            return tick;
        }

        private static int ticksPerWheel(WheelTimerProperties properties) {
            int ticks = properties.getTicksPerWheel();
            if (ticks < 1 || ticks > HashedWheelTimer.MAX_TICKS_PER_WHEEL) {
                throw new InvalidConfigurationPropertyValueException(
                        "wheel-timer.ticks-per-wheel",
                        ticks,
                        "must be from 1 to 1073741824 (2^30); it is rounded up to a power of two");
            }
            return ticks;
        }

        private static Executor executor(WheelTimerProperties properties, BeanFactory beanFactory) {
            String name = properties.getExecutor();
            if (name == null || name.isBlank()) {
                return null;
            }
            try {
                return beanFactory.getBean(name, Executor.class);
            } catch (BeanNotOfRequiredTypeException e) {
                throw new InvalidConfigurationPropertyValueException(
                        "wheel-timer.executor",
                        name,
                        "the bean '" + name + "' is a " + e.getActualType().getName() + ", not an Executor;"
                                + " name an Executor bean, or leave it empty to run tasks on the worker thread");
            } catch (NoSuchBeanDefinitionException e) {
                throw new InvalidConfigurationPropertyValueException(
                        "wheel-timer.executor",
                        name,
                        "there is no bean named '" + name + "'; name an Executor bean,"
                                + " or leave it empty to run tasks on the worker thread");
            }
        }
    }
}
