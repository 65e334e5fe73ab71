package io.wheeltimer.spring;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timer;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * What a {@link WheelTimeLimit @WheelTimeLimit} method does when called, decided once at startup:
 * its limit, the kind of result it returns, and the timer (looked up on the first call, so that
 * the check at startup does not create the timer early).
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
    final String timerName;
    private final ListableBeanFactory beanFactory;
    private volatile Timer timer;
    private volatile Runnable exceededCounter;

    TimeLimitedMethod(
            String description,
            Duration limit,
            Result result,
            boolean cancelOnTimeout,
            String timerName,
            ListableBeanFactory beanFactory) {
        this.description = description;
        this.limit = limit;
        this.limitNanos = limit.toNanos();
        this.result = result;
        this.cancelOnTimeout = cancelOnTimeout;
        this.timerName = timerName;
        this.beanFactory = beanFactory;
    }

    Timer timer() {
        Timer resolved = timer;
        if (resolved == null) {
            resolved = beanFactory.getBean(timerName, Timer.class);
            timer = resolved;
        }
        return resolved;
    }

    /** What the caller's result fails with; made only when the limit passed. */
    TimeoutException timeoutException() {
        return new TimeoutException(description + " did not complete within " + limit);
    }

    /** Counts a passed limit, if there is a MeterRegistry. */
    void exceeded() {
        Runnable counter = exceededCounter;
        if (counter == null) {
            counter = MICROMETER ? TimeLimitExceededCounter.lookUp(beanFactory, timerName, description) : () -> {};
            exceededCounter = counter;
        }
        counter.run();
    }

    /** Why the timer refused the deadline, for the caller. */
    IllegalStateException refused(Timer timer, RuntimeException cause) {
        boolean stopped = timer instanceof HashedWheelTimer wheel && wheel.state() == HashedWheelTimer.State.SHUTDOWN;
        return new IllegalStateException(
                "Cannot limit " + description + ": timer '" + timerName + "'"
                        + (stopped ? " is stopped" : " refused it: " + cause.getMessage()),
                cause);
    }
}
