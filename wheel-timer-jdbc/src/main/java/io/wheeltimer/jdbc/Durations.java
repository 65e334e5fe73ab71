package io.wheeltimer.jdbc;

import java.time.Duration;

/** Durations as messages write them. */
final class Durations {

    /** {@code 1s}, {@code 250ms}, the way the properties are written; ISO-8601 when finer. */
    static String format(Duration duration) {
        if (duration.getNano() == 0) {
            return duration.getSeconds() + "s";
        }
        if (duration.getNano() % 1_000_000 == 0) {
            return duration.toMillis() + "ms";
        }
        return duration.toString();
    }

    private Durations() {}
}
