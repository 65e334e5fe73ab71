package io.wheeltimer.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A WARN line for a trouble that repeats (a task executor that refuses, a database that cannot be
 * reached), which a flood can neither stall nor turn into a flood of lines: at most one line per
 * interval. The first occurrence, and the first after the interval since the last line, is logged in
 * full with its exception, and says how many repeats were counted since the last line; the repeats
 * in between are only counted. {@link #flush} writes the count on its own once the interval has
 * passed, for a caller that has a loop of its own (the wheel's worker) and wants the count written
 * even when the trouble stopped. No thread of its own.
 *
 * <p>Thread safe; a repeat costs a clock read and an atomic add, and its message is never built.
 *
 * <p>Internal to wheel-timer's modules: not an API, it may change in any release.
 */
public final class RepeatLog {

    private final System.Logger log;
    private final String what;
    private final long intervalNanos;
    private final LongSupplier clock;
    private final AtomicLong suppressed = new AtomicLong();
    /** Clock reading at the last line written; {@code Long.MIN_VALUE} before the first occurrence. */
    private final AtomicLong lastLogged = new AtomicLong(Long.MIN_VALUE);

    /**
     * @param what the plural noun the counts are written with, e.g. "tasks refused by the task executor"
     * @param intervalNanos the least time between two lines, in nanoseconds
     * @param clock nanoseconds (the timer's ticker, or {@link System#nanoTime}), so that tests drive the interval
     */
    public RepeatLog(System.Logger log, String what, long intervalNanos, LongSupplier clock) {
        this.log = log;
        this.what = what;
        this.intervalNanos = intervalNanos;
        this.clock = clock;
    }

    /**
     * One occurrence: logged in full (with the count of repeats since the last line) if it is the
     * first, or if the interval since the last line has passed; otherwise only counted.
     */
    public void report(Supplier<String> message, Throwable thrown) {
        long nowNanos = clock.getAsLong();
        long lastNanos = lastLogged.get();
        if ((lastNanos == Long.MIN_VALUE || nowNanos - lastNanos >= intervalNanos)
                && lastLogged.compareAndSet(lastNanos, nowNanos)) {
            long repeats = suppressed.getAndSet(0);
            String count = repeats == 0
                    ? ""
                    : " (" + repeats + " more " + what + " since the last line; at most one line every " + seconds()
                            + " s)";
            log.log(System.Logger.Level.WARNING, message.get() + count, thrown);
            return;
        }
        suppressed.incrementAndGet();
    }

    /** Writes the count of repeats if there are any and the interval since the last line has passed. */
    public void flush() {
        flush(false);
    }

    /** Writes the count of repeats if there are any: now if {@code force} (on stop), else when due. */
    public void flush(boolean force) {
        if (suppressed.get() == 0) {
            return;
        }
        long lastNanos = lastLogged.get();
        long nowNanos = clock.getAsLong();
        if ((force || nowNanos - lastNanos >= intervalNanos) && lastLogged.compareAndSet(lastNanos, nowNanos)) {
            long count = suppressed.getAndSet(0);
            if (count > 0) {
                log.log(
                        System.Logger.Level.WARNING,
                        count + " more " + what + " since the last line"
                                + " (the first was logged with its stack trace; at most one line every " + seconds()
                                + " s)");
            }
        }
    }

    /** Clock reading at which the count of repeats is due to be written; {@code Long.MAX_VALUE}: nothing to write. */
    public long nextFlushAtNanos() {
        long lastNanos = lastLogged.get();
        return suppressed.get() == 0 || lastNanos == Long.MIN_VALUE ? Long.MAX_VALUE : lastNanos + intervalNanos;
    }

    private long seconds() {
        return intervalNanos / 1_000_000_000L;
    }
}
