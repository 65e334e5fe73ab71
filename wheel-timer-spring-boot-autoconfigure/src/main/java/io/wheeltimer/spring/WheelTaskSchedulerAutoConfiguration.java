package io.wheeltimer.spring;

import io.wheeltimer.Ticker;
import io.wheeltimer.Timer;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.spring.autoconfigure.WheelTimerProperties;
import java.util.concurrent.Executor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Fallback;

/**
 * Auto-configures a {@link WheelTaskScheduler} bean named {@value #BEAN_NAME} on the timer, for the
 * application to hand to SockJS, STOMP or its own code: injected by its own type
 * ({@code WheelTaskScheduler}) or as {@code @Qualifier("wheelTaskScheduler") TaskScheduler}.
 *
 * <p>It leaves Boot's {@code taskScheduler} and {@code @Scheduled} alone: it is configured after
 * Boot's task scheduling, so Boot's {@code taskScheduler} is still created where it would have been
 * (Boot backs off for any {@code TaskScheduler} bean already defined), and it is a {@link Fallback}
 * bean, so that wherever another {@code TaskScheduler} exists, Boot's or the application's, that one
 * wins a plain {@code TaskScheduler} injection point and the scheduler lookup of {@code @Scheduled}.
 * Where no other exists, it is the only {@code TaskScheduler}, and both get it. (A bean that is no
 * default candidate would keep it from plain injection points, but from one of its own type too.)
 *
 * <p>Tasks run on the executor that {@code @WheelTimeout} calls use: the bean named by
 * {@code wheel-timer.annotation.executor} (by default {@code applicationTaskExecutor}, which
 * {@code @Async} uses) where it exists, else a {@code SimpleAsyncTaskExecutor} of the scheduler's
 * own; never the timer's worker thread. The scheduler's clock follows the {@link Ticker} bean when
 * there is exactly one, as the timer's does.
 */
@AutoConfiguration(
        after = WheelTimerAutoConfiguration.class,
        afterName = "org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration")
@ConditionalOnBooleanProperty(name = "wheel-timer.enabled", matchIfMissing = true)
@EnableConfigurationProperties(WheelTimerProperties.class)
public final class WheelTaskSchedulerAutoConfiguration {

    /** The name of the auto-configured scheduler bean. */
    public static final String BEAN_NAME = "wheelTaskScheduler";

    @Bean(name = BEAN_NAME)
    @Fallback
    @ConditionalOnSingleCandidate(Timer.class)
    @ConditionalOnMissingBean(name = BEAN_NAME)
    WheelTaskScheduler wheelTaskScheduler(
            Timer timer, ObjectProvider<Ticker> ticker, WheelTimerProperties properties, BeanFactory beanFactory) {
        Ticker time = ticker.getIfUnique(Ticker::system);
        Executor executor = executor(properties, beanFactory);
        return executor != null ? new WheelTaskScheduler(timer, time, executor) : new WheelTaskScheduler(timer, time);
    }

    /**
     * The bean {@code wheel-timer.annotation.executor} names, if it is an Executor; then this
     * scheduler depends on it, so that the context closes the scheduler first.
     */
    private static Executor executor(WheelTimerProperties properties, BeanFactory beanFactory) {
        String name = properties.getAnnotation().getExecutor();
        name = name != null ? name.trim() : "";
        if (name.isEmpty() || !beanFactory.containsBean(name) || !beanFactory.isTypeMatch(name, Executor.class)) {
            return null;
        }
        Executor executor = beanFactory.getBean(name, Executor.class);
        if (beanFactory instanceof ConfigurableBeanFactory configurable) {
            configurable.registerDependentBean(name, BEAN_NAME);
        }
        return executor;
    }
}
