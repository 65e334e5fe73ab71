package io.wheeltimer.spring;

import io.wheeltimer.Timer;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * What a {@link WheelTimeout @WheelTimeout} method does when called, decided once: its delay, what
 * the caller gets back, and the timer it goes to (looked up on the first call, so that the check
 * at startup does not create the timer early).
 */
final class ScheduledMethod {

    /** What the call returns. */
    enum Result { NONE, TIMEOUT, FUTURE }

    final String description;
    final long delayNanos;
    final Result result;
    private final String timerName;
    private final ListableBeanFactory beanFactory;
    private volatile Timer timer;

    ScheduledMethod(String description, long delayNanos, Result result, String timerName,
            ListableBeanFactory beanFactory) {
        this.description = description;
        this.delayNanos = delayNanos;
        this.result = result;
        this.timerName = timerName;
        this.beanFactory = beanFactory;
    }

    Timer timer() {
        Timer resolved = timer;
        if (resolved == null) {
            resolved = timerName.isEmpty()
                    ? beanFactory.getBeanProvider(Timer.class).getObject()
                    : beanFactory.getBean(timerName, Timer.class);
            timer = resolved;
        }
        return resolved;
    }

    String timerName() {
        return timerName.isEmpty() ? "the Timer bean" : "timer '" + timerName + "'";
    }
}
