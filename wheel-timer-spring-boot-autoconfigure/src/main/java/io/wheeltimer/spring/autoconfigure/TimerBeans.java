package io.wheeltimer.spring.autoconfigure;

import io.wheeltimer.HashedWheelTimer;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.beans.factory.ListableBeanFactory;

/** Every {@link HashedWheelTimer} bean by name, as the meters, the endpoint and the health indicator see them. */
final class TimerBeans {

    private TimerBeans() {}

    /**
     * Looked up on each call, so timers declared as {@code Timer} or created later are included.
     * Singletons only: looking up a prototype-scoped timer would create (and leak) a new timer each time.
     */
    static Supplier<Map<String, HashedWheelTimer>> in(ListableBeanFactory beanFactory) {
        return () -> beanFactory.getBeansOfType(HashedWheelTimer.class, false, true);
    }
}
