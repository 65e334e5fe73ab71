package io.wheeltimer;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A WARN log line that a flood cannot turn into a stall: the first occurrence (and the first after
 * a quiet interval) is logged with its stack trace; repeats are only counted, and the count is logged at most once per
 * {@code interval} ("N more ... in the last 10 s"), by whichever thread reports one after the
 * interval has passed, or by the worker at the end of a round ({@link #flush}). No thread of its own.
 *
 * <p>Thread safe: tasks fail on executor threads too. The counting costs one atomic add.
 */
final class RepeatLog {

    private final System.Logger log;
    private final String what;
    private final long intervalNanos;
    private final LongSupplier clock;
    private final AtomicLong suppressed = new AtomicLong();
    /** Clock reading at the last line written; {@code Long.MIN_VALUE} before the first occurrence. */
    private final AtomicLong lastLogged = new AtomicLong(Long.MIN_VALUE);

    /**
     * @param what the plural noun of the summary line, e.g. "tasks refused by the task executor"
     * @param clock nanoseconds, the timer's ticker, so that tests drive the interval
     */
    RepeatLog(System.Logger log, String what, long intervalNanos, LongSupplier clock) {
        this.log = log;
        this.what = what;
        this.intervalNanos = intervalNanos;
        this.clock = clock;
    }

    /**
     * One occurrence: logged in full if it is the first, otherwise counted (and summarised when due).
     * The message is built only if it is logged: a repeat costs a clock read and an atomic add.
     */
    void report(Supplier<String> message, Throwable thrown) {
        long now = clock.getAsLong();
        long last = lastLogged.get();
        boolean quiet = last == Long.MIN_VALUE || now - last >= intervalNanos && suppressed.get() == 0;
        if (quiet && lastLogged.compareAndSet(last, now)) {
            log.log(
                    System.Logger.Level.WARNING,
                    message.get() + " (repeats within " + intervalNanos / 1_000_000_000L
                            + " s are counted and logged as one line)",
                    thrown);
            return;
        }
        suppressed.incrementAndGet();
        flush();
    }

    /** Logs the count of repeats if there are any and the interval since the last line has passed. */
    void flush() {
        flush(false);
    }

    /** Logs the count of repeats if there are any: now if {@code force} (on stop), else when due. */
    void flush(boolean force) {
        if (suppressed.get() == 0) {
            return;
        }
        long last = lastLogged.get();
        long now = clock.getAsLong();
        if ((force || last != Long.MIN_VALUE && now - last >= intervalNanos) && lastLogged.compareAndSet(last, now)) {
            long count = suppressed.getAndSet(0);
            if (count > 0) {
                log.log(
                        System.Logger.Level.WARNING,
                        count + " more " + what + " since the last report"
                                + " (the first was logged with its stack trace; see the failed count)");
            }
        }
    }

    /** Clock reading at which the count of repeats is due to be logged; {@code Long.MAX_VALUE}: nothing to log. */
    long nextFlushAt() {
        long last = lastLogged.get();
        return suppressed.get() == 0 || last == Long.MIN_VALUE ? Long.MAX_VALUE : last + intervalNanos;
    }
}
