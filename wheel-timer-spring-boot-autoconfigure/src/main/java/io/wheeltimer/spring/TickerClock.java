package io.wheeltimer.spring;

import io.wheeltimer.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;

/**
 * A {@link Clock} driven by a timer's {@link Ticker}: the wall time read once at construction, moved
 * on by the ticker since then. Under the system ticker it is the system clock without its jumps
 * (an NTP step does not move it); under a {@link io.wheeltimer.testing.ManualTicker} it moves only
 * when the test advances the ticker.
 *
 * <p>It also converts between wall times and ticker readings, so that {@link WheelTaskScheduler}
 * keeps every due time as a ticker reading and never reads the wall clock to compute a delay.
 * Delays are held within {@value #MAX_SPAN_NANOS} ns (about 73 years) either way, so that the
 * difference of two readings never wraps; a time further away than that is treated as that far.
 */
final class TickerClock extends Clock {

    /** Longest delay kept, either way: a quarter of the range of a long, about 73 years. */
    static final long MAX_SPAN_NANOS = Long.MAX_VALUE >> 2;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final Ticker ticker;
    private final long originNanos;
    private final Instant origin;
    private final ZoneId zone;

    /** A clock that reads {@code wall} once, now, and follows {@code ticker} from there. */
    TickerClock(Ticker ticker, Clock wall) {
        this(ticker, ticker.nanoTime(), wall.instant(), wall.getZone());
    }

    private TickerClock(Ticker ticker, long originNanos, Instant origin, ZoneId zone) {
        this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
        this.originNanos = originNanos;
        this.origin = origin;
        this.zone = Objects.requireNonNull(zone, "zone must not be null");
    }

    /** The ticker's reading now. */
    long nanoTime() {
        return ticker.nanoTime();
    }

    /** The wall time at ticker reading {@code nanos}. */
    Instant instantAt(long nanos) {
        return origin.plusNanos(nanos - originNanos);
    }

    /**
     * The ticker reading at wall time {@code instant}, given the reading {@code now}: {@code now} plus
     * the delay until {@code instant}, the delay held within {@link #MAX_SPAN_NANOS} either way.
     */
    long nanosAt(Instant instant, long now) {
        long sinceOrigin = nanosBetween(origin, instant);
        long delay = clampSpan(saturatedSubtract(sinceOrigin, now - originNanos));
        return now + delay;
    }

    /** {@code duration} in nanoseconds, held within {@link #MAX_SPAN_NANOS} either way. */
    static long spanNanos(Duration duration) {
        long seconds = duration.getSeconds();
        if (seconds > MAX_SPAN_NANOS / NANOS_PER_SECOND) {
            return MAX_SPAN_NANOS;
        }
        if (seconds < -MAX_SPAN_NANOS / NANOS_PER_SECOND) {
            return -MAX_SPAN_NANOS;
        }
        return clampSpan(seconds * NANOS_PER_SECOND + duration.getNano());
    }

    /** {@code a * b} for {@code a, b >= 0}, held within {@link #MAX_SPAN_NANOS}. */
    static long spanProduct(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long product = a * b;
        return high != 0 || product < 0 ? MAX_SPAN_NANOS : clampSpan(product);
    }

    static long clampSpan(long nanos) {
        return Math.max(-MAX_SPAN_NANOS, Math.min(MAX_SPAN_NANOS, nanos));
    }

    private static long nanosBetween(Instant from, Instant to) {
        // Epoch seconds lie within +-3.2e16, so their difference fits in a long.
        long seconds = to.getEpochSecond() - from.getEpochSecond();
        if (seconds > Long.MAX_VALUE / NANOS_PER_SECOND - 1) {
            return Long.MAX_VALUE;
        }
        if (seconds < Long.MIN_VALUE / NANOS_PER_SECOND + 1) {
            return Long.MIN_VALUE;
        }
        return seconds * NANOS_PER_SECOND + (to.getNano() - from.getNano());
    }

    private static long saturatedSubtract(long a, long b) {
        long difference = a - b;
        // Overflow only when the operands have different signs and the result's sign is a's opposite.
        if (((a ^ b) & (a ^ difference)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return difference;
    }

    @Override
    public Instant instant() {
        return instantAt(ticker.nanoTime());
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    /** The same time line in another zone. */
    @Override
    public Clock withZone(ZoneId zone) {
        return zone.equals(this.zone) ? this : new TickerClock(ticker, originNanos, origin, zone);
    }

    @Override
    public String toString() {
        return "TickerClock(" + ticker + ", " + zone + ")";
    }
}
