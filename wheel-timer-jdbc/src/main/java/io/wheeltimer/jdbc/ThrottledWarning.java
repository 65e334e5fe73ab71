package io.wheeltimer.jdbc;

import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * At most one WARN line per interval for a trouble that repeats (the database cannot be reached): the
 * first occurrence is logged with its exception; the ones within the interval after a logged line
 * are only counted, and the next line logged says how many there were. Thread safe.
 */
final class ThrottledWarning {

    private final System.Logger log;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private long lastLogged;
    private boolean loggedOnce;
    private long suppressed;

    ThrottledWarning(System.Logger log, long intervalNanos, LongSupplier nanoClock) {
        this.log = log;
        this.intervalNanos = intervalNanos;
        this.nanoClock = nanoClock;
    }

    /** One occurrence: logged now if no line was logged within the interval, otherwise counted. */
    void report(Supplier<String> message, Throwable thrown) {
        long count;
        synchronized (this) {
            long now = nanoClock.getAsLong();
            if (loggedOnce && now - lastLogged < intervalNanos) {
                suppressed++;
                return;
            }
            loggedOnce = true;
            lastLogged = now;
            count = suppressed;
            suppressed = 0;
        }
        String more = count == 0
                ? ""
                : " (" + count + " more like it since the last line; at most one line every "
                        + intervalNanos / 1_000_000_000L + " s)";
        log.log(System.Logger.Level.WARNING, message.get() + more, thrown);
    }
}
