package io.wheeltimer.spring.annotated;

import io.wheeltimer.Timer;
import io.wheeltimer.spring.WheelTimeout;
import java.util.concurrent.Executor;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * What a {@link WheelTimeout @WheelTimeout} method does when called, decided once: its delay, what
 * the caller gets back, the timer it goes to, the executor it runs on and whether it carries the
 * caller's context. Beans are looked up on the first call (the timer chosen by type is resolved
 * once every singleton exists, if that comes first), so that the check when the method's bean is
 * created does not create them early.
 */
final class ScheduledMethod {

    /** What the call returns. */
    enum Result {
        NONE,
        TIMEOUT,
        FUTURE
    }

    private static final boolean OBSERVATION_PRESENT = ClassUtils.isPresent(
            "io.micrometer.observation.ObservationRegistry", ScheduledMethod.class.getClassLoader());

    final String description;
    final long delayNanos;
    final Result result;
    final boolean propagateContext;
    private final AnnotatedTimer timer;
    private final String executorName;
    private final boolean executorRequired;
    private final ListableBeanFactory beanFactory;
    private volatile Resolved resolved;

    /** The beans, looked up once. */
    record Resolved(Timer timer, String timerBeanName, Executor executor, Object observationRegistry) {}

    /**
     * @param timer the timer, as the annotation names it or by type
     * @param executorName the executor's bean name; empty: the timer's own
     * @param executorRequired whether it was named (else it is the default, used only if it exists)
     */
    ScheduledMethod(
            String description,
            long delayNanos,
            Result result,
            AnnotatedTimer timer,
            String executorName,
            boolean executorRequired,
            boolean propagateContext,
            ListableBeanFactory beanFactory) {
        this.description = description;
        this.delayNanos = delayNanos;
        this.result = result;
        this.timer = timer;
        this.executorName = executorName;
        this.executorRequired = executorRequired;
        this.propagateContext = propagateContext;
        this.beanFactory = beanFactory;
    }

    Resolved resolved() {
        Resolved r = resolved;
        if (r == null) {
            r = new Resolved(timer.timer(), timer.beanName(), executor(), observationRegistry());
            resolved = r;
        }
        return r;
    }

    private Executor executor() {
        if (executorName.isEmpty()) {
            return null;
        }
        if (executorRequired) {
            return beanFactory.getBean(executorName, Executor.class);
        }
        // The default executor is used where it exists: without it, the timer's own runs the call.
        return beanFactory.containsBean(executorName) && beanFactory.isTypeMatch(executorName, Executor.class)
                ? beanFactory.getBean(executorName, Executor.class)
                : null;
    }

    private Object observationRegistry() {
        return OBSERVATION_PRESENT
                ? beanFactory
                        .getBeanProvider(io.micrometer.observation.ObservationRegistry.class)
                        .getIfUnique()
                : null;
    }

    String timerName() {
        return "timer '" + timer.beanName() + "'";
    }
}
