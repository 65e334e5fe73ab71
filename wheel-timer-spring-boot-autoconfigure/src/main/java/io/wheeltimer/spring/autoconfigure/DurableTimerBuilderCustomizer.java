package io.wheeltimer.spring.autoconfigure;

import io.wheeltimer.jdbc.JdbcDurableTimer;

/**
 * Changes the builder of the auto-configured {@code durableTimer} after the
 * {@code wheel-timer.durable.*} properties were applied and before it is built (a clock for tests,
 * say). Every bean of this type is applied, in order.
 */
@FunctionalInterface
public interface DurableTimerBuilderCustomizer {

    void customize(JdbcDurableTimer.Builder builder);
}
