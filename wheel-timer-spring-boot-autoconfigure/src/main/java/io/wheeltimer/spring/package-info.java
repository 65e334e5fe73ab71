/**
 * The starter's public face: {@link io.wheeltimer.spring.WheelTimeout @WheelTimeout} (deferred work),
 * {@link io.wheeltimer.spring.WheelTimeLimit @WheelTimeLimit} (time limits), and the task scheduler on
 * the wheel, {@link io.wheeltimer.spring.WheelTaskScheduler}, with its auto-configuration and the
 * parts it is made of.
 *
 * <p>The rest sits by feature: what makes the two annotations work in {@code io.wheeltimer.spring.annotated};
 * the in-memory timer (auto-configuration, properties, endpoint, health, meters, shutdown, Lettuce) in
 * {@code io.wheeltimer.spring.autoconfigure}; durable timeouts (auto-configuration, properties,
 * {@code @DurableTimerTask} methods, endpoint, health, meters, failure analysis) in
 * {@code io.wheeltimer.spring.autoconfigure.durable}.
 */
package io.wheeltimer.spring;
