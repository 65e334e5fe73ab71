/**
 * The in-memory timer: the {@code wheelTimer} bean and its {@code wheel-timer.*} properties, graceful
 * shutdown, the {@code wheeltimer} endpoint, health and meters, the report of a bad property, runtime
 * hints, and Lettuce's timeouts on the wheel. {@link
 * io.wheeltimer.spring.autoconfigure.DurableTimerBuilderCustomizer} is here too, where applications
 * name it; the rest of durable timeouts is in {@code io.wheeltimer.spring.autoconfigure.durable}.
 */
package io.wheeltimer.spring.autoconfigure;
