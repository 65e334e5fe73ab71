package io.wheeltimer.spring.annotated;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * The {@code wheel.timer.time.limit.exceeded} counter of one method. Its own class so that
 * Micrometer stays optional: it is loaded only when Micrometer is on the class path.
 */
final class TimeLimitExceededCounter {

    static final String NAME = "wheel.timer.time.limit.exceeded";

    private TimeLimitExceededCounter() {}

    /** Looked up at the first timeout, after startup: the registry (primary or only one) exists by then, or never will. */
    static Runnable lookUp(ListableBeanFactory beanFactory, String timerName, String description) {
        MeterRegistry registry =
                beanFactory.getBeanProvider(MeterRegistry.class).getIfAvailable();
        if (registry == null) {
            return () -> {};
        }
        Counter counter = Counter.builder(NAME)
                .description("Calls of a @WheelTimeLimit method whose result did not complete within its limit")
                .baseUnit("calls")
                .tag("name", timerName)
                .tag("task", description)
                .register(registry);
        return counter::increment;
    }
}
