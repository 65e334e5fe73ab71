package io.wheeltimer.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.function.LongSupplier;

/**
 * The database's clock as this instance reads it: a monotonic local reading ({@link System#nanoTime})
 * plus an offset measured at each lease renewal (the database's time, less the middle of the round
 * trip that read it). The wall clock takes no part in it, so a step of this instance's wall clock (an
 * NTP step, a VM resumed, an operator) changes nothing about when timeouts fire; the wall clock's own
 * offset to the database's is kept only to report a skew.
 *
 * <p>A reading is off by at most half its round trip, and a round trip stretched by a busy machine or
 * network is stretched unevenly: of the last {@value #READINGS} readings, the one with the shortest
 * round trip gives the offset, as NTP's clock filter does, so that a slow poll does not move when
 * timeouts fire. Each reading errs late, never early: the database's time is truncated to the
 * millisecond, the middle of the round trip is rounded to its later side, and the time this clock
 * gives is truncated again. Before the first reading, the first use reads the database's time.
 *
 * <p>None of this alone keeps a timeout from firing early: the statement that starts a run checks
 * the deadline against the database's own clock, and this clock only decides when to ask.
 */
final class DatabaseClock extends Clock {

    /** How many of the latest readings the offset is chosen from. */
    static final int READINGS = 8;

    private static final long NANOS_PER_MILLI = 1_000_000;

    /** What reads the database's time, in epoch milliseconds, in a statement of its own. */
    interface Reader {
        long databaseMillis();
    }

    private final Clock wall;
    private final LongSupplier monotonicNanos;
    private final Reader reader;

    /** The database's time in epoch nanoseconds, less {@link #monotonicNanos}. */
    private volatile long offsetNanos;
    /** The database's time less the wall clock's, at the latest reading; for reports only. */
    private volatile long wallOffsetMillis;

    private volatile boolean measured;

    // Guarded by this object's monitor: the latest readings, oldest overwritten first.
    private final long[] offsets = new long[READINGS];
    private final long[] roundTrips = new long[READINGS];
    private int readings;

    /**
     * @param wall this instance's wall clock, whose offset to the database's is reported
     * @param monotonicNanos a monotonic reading in nanoseconds, such as {@code System::nanoTime}
     * @param reader reads the database's time, for a use before the first lease renewal
     */
    DatabaseClock(Clock wall, LongSupplier monotonicNanos, Reader reader) {
        this.wall = wall;
        this.monotonicNanos = monotonicNanos;
        this.reader = reader;
    }

    /** This instance's wall clock, in epoch milliseconds: only to report how far it is off. */
    long wallMillis() {
        return wall.millis();
    }

    /** The monotonic reading that measurements are taken against, in nanoseconds. */
    long monotonicNanos() {
        return monotonicNanos.getAsLong();
    }

    /**
     * Records a reading of the database's time ({@code databaseMillis}, truncated to the millisecond),
     * taken between the monotonic readings {@code beforeNanos} and {@code afterNanos}, and the wall
     * clock's reading {@code wallAfterMillis} at its end.
     */
    synchronized void measured(long databaseMillis, long beforeNanos, long afterNanos, long wallAfterMillis) {
        long roundTripNanos = Math.max(0, afterNanos - beforeNanos);
        long middleNanos = beforeNanos + (roundTripNanos + 1) / 2; // rounded to the later side
        int slot = readings++ % READINGS;
        offsets[slot] = databaseMillis * NANOS_PER_MILLI - middleNanos;
        roundTrips[slot] = roundTripNanos;
        int best = 0;
        for (int i = 1; i < Math.min(readings, READINGS); i++) {
            if (roundTrips[i] < roundTrips[best]) {
                best = i;
            }
        }
        offsetNanos = offsets[best];
        long halfRoundTripMillis = (roundTripNanos / 2) / NANOS_PER_MILLI;
        wallOffsetMillis = databaseMillis - (wallAfterMillis - halfRoundTripMillis);
        measured = true;
    }

    /**
     * Reads the database's time now, in a statement of its own, and records the reading; returns it.
     *
     * @throws org.springframework.dao.DataAccessException if the database cannot be reached
     */
    long read() {
        long before = monotonicNanos();
        long databaseMillis = reader.databaseMillis();
        long after = monotonicNanos();
        measured(databaseMillis, before, after, wallMillis());
        return databaseMillis;
    }

    /** The database's clock less this instance's wall clock, at the latest reading. */
    Duration offset() {
        return Duration.ofMillis(wallOffsetMillis);
    }

    boolean isMeasured() {
        return measured;
    }

    /** The database's time in epoch milliseconds, reading it first if it was never read. */
    @Override
    public long millis() {
        if (!measured) {
            synchronized (this) {
                if (!measured) {
                    read();
                }
            }
        }
        return Math.floorDiv(monotonicNanos() + offsetNanos, NANOS_PER_MILLI);
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return wall.getZone();
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the database's clock has no zone of its own");
    }
}
