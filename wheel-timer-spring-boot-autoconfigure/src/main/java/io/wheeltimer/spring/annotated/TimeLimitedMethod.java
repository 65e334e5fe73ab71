package io.wheeltimer.spring.annotated;

import io.wheeltimer.Timer;
import io.wheeltimer.spring.WheelTimeLimit;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * What a {@link WheelTimeLimit @WheelTimeLimit} method does when called, decided once at startup:
 * its limit, the kind of result it returns, and the timer (looked up on the first call, or for one
 * chosen by type once every singleton exists if that comes first, so that the check when the
 * method's bean is created does not create the timer early).
 */
final class TimeLimitedMethod {

    /** The kinds of result that can be given a deadline. */
    enum Result {
        FUTURE,
        STAGE,
        MONO,
        FLUX
    }

    private static final boolean MICROMETER = ClassUtils.isPresent(
            "io.micrometer.core.instrument.MeterRegistry", TimeLimitedMethod.class.getClassLoader());

    final String description;
    final Duration limit;
    final long limitNanos;
    final Result result;
    final boolean cancelOnTimeout;
    private final AnnotatedTimer timer;
    private final ListableBeanFactory beanFactory;
    private volatile Runnable exceededCounter;

    TimeLimitedMethod(
            String description,
            Duration limit,
            Result result,
            boolean cancelOnTimeout,
            AnnotatedTimer timer,
            ListableBeanFactory beanFactory) {
        this.description = description;
        this.limit = limit;
        this.limitNanos = limit.toNanos();
        this.result = result;
        this.cancelOnTimeout = cancelOnTimeout;
        this.timer = timer;
        this.beanFactory = beanFactory;
    }

    Timer timer() {
        return timer.timer();
    }

    /** What the caller's result fails with; made only when the limit passed. */
    TimeoutException timeoutException() {
        return new TimeoutException(description + " did not complete within " + limit);
    }

    /** Counts a passed limit, if there is a MeterRegistry. */
    void exceeded() {
        Runnable counter = exceededCounter;
        if (counter == null) {
            counter =
                    MICROMETER ? TimeLimitExceededCounter.lookUp(beanFactory, timer.beanName(), description) : () -> {};
            exceededCounter = counter;
        }
        counter.run();
    }

    /** Why the timer refused the deadline, for the caller. */
    IllegalStateException refused(Timer timer, RuntimeException cause) {
        boolean stopped = AnnotatedTimer.isStopped(timer);
        return new IllegalStateException(
                "Cannot limit " + description + ": timer '" + this.timer.beanName() + "'"
                        + (stopped ? " is stopped" : " refused it: " + cause.getMessage()),
                cause);
    }
}
