package io.wheeltimer.spring.autoconfigure.durable;

import java.time.Duration;
import java.util.List;

/**
 * The bucket bounds of the {@code wheel.timer.durable.lateness} timer's histogram, from 1 ms to 1
 * minute: fine where a deadline is met (a durable timeout fires within a poll interval of its
 * deadline, 1 s by default), coarse where it is missed. A page that draws the lateness uses the same
 * bounds, so what it shows and what a metrics backend shows count the same samples alike. Free of
 * Micrometer, so that it can be read where Micrometer is absent.
 */
public final class LatenessBuckets {

    /** The upper bounds, inclusive, ascending; a sample above the last one falls in an overflow bucket. */
    public static final List<Duration> BOUNDS = List.of(
            Duration.ofMillis(1),
            Duration.ofMillis(5),
            Duration.ofMillis(10),
            Duration.ofMillis(25),
            Duration.ofMillis(50),
            Duration.ofMillis(100),
            Duration.ofMillis(250),
            Duration.ofMillis(500),
            Duration.ofSeconds(1),
            Duration.ofMillis(2500),
            Duration.ofSeconds(5),
            Duration.ofSeconds(10),
            Duration.ofSeconds(30),
            Duration.ofMinutes(1));

    private LatenessBuckets() {}
}
