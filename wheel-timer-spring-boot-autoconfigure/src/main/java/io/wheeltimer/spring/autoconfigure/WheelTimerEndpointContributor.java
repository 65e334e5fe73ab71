package io.wheeltimer.spring.autoconfigure;

/**
 * Adds a section to {@code GET /actuator/wheeltimer}, beside {@code "timers"}: a bean of this type
 * makes the answer {@code {"timers": {...}, name(): describe()}}. For modules built on the timer
 * (durable timeouts add {@code "durable"}) that the endpoint need not know of.
 */
public interface WheelTimerEndpointContributor {

    /** The section's key in the answer; neither {@code "timers"} nor another section's. */
    String name();

    /**
     * The section's content, read on each request and written as JSON (a record, a map); must not
     * throw: report what could not be read inside it.
     */
    Object describe();
}
