package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.spring.annotated.WheelTimeoutBeanPostProcessor;
import java.util.concurrent.Executor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Where {@code @DurableTimerTask} methods run, picked as {@code @WheelTimeout} picks for its calls:
 * the bean named by {@code wheel-timer.annotation.executor} (by default
 * {@code applicationTaskExecutor}, the executor of {@code @Async}); where {@code @WheelTimeout} would
 * fall back to the wheel's worker (no such bean, or the property empty), a
 * {@link SimpleAsyncTaskExecutor} of its own, never the worker: a handler runs a transaction.
 *
 * <p>Not an {@link Executor} itself, so that it does not count as the application's executor (Boot's
 * {@code applicationTaskExecutor} backs off when there is one).
 */
final class DurableTimerHandlerExecutor implements AutoCloseable {

    /** The thread name prefix of the executor of its own. */
    static final String THREAD_NAME_PREFIX = "wheel-timer-durable-";

    private final Executor executor;
    private final SimpleAsyncTaskExecutor own;

    private DurableTimerHandlerExecutor(Executor executor, SimpleAsyncTaskExecutor own) {
        this.executor = executor;
        this.own = own;
    }

    static DurableTimerHandlerExecutor pick(BeanFactory beanFactory, Environment environment) {
        String name = environment
                .getProperty(
                        WheelTimeoutBeanPostProcessor.EXECUTOR_PROPERTY, WheelTimeoutBeanPostProcessor.DEFAULT_EXECUTOR)
                .trim();
        if (!name.isEmpty() && beanFactory.containsBean(name) && beanFactory.isTypeMatch(name, Executor.class)) {
            return new DurableTimerHandlerExecutor(beanFactory.getBean(name, Executor.class), null);
        }
        SimpleAsyncTaskExecutor own = new SimpleAsyncTaskExecutor(THREAD_NAME_PREFIX);
        return new DurableTimerHandlerExecutor(own, own);
    }

    Executor executor() {
        return executor;
    }

    /** Closes the executor of its own, if it made one; the application's is the application's to close. */
    @Override
    public void close() {
        if (own != null) {
            own.close();
        }
    }

    @Override
    public String toString() {
        return own != null ? "SimpleAsyncTaskExecutor(" + THREAD_NAME_PREFIX + ")" : executor.toString();
    }
}
