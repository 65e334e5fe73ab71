/**
 * Durable timeouts on Spring Boot, all together: the auto-configuration of the {@code durableTimer}
 * bean and its {@code wheel-timer.durable.*} properties, the schema initializer, the
 * {@code @DurableTimerTask} methods, the executor handlers run on, tracing and data codec, the
 * {@code durabletimeouts} endpoint and the durable part of {@code wheeltimer}, health, meters, and the
 * report of a table that cannot be used. Active when {@code wheel-timer-jdbc} is on the class path.
 */
package io.wheeltimer.spring.autoconfigure.durable;
