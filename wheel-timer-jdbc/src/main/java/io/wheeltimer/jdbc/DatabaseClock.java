package io.wheeltimer.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

/**
 * The database's clock as this instance reads it: its own clock plus an offset measured at each lease
 * renewal (the database's time, less the middle of the round trip that read it). A reading is off by
 * at most half its round trip, and a round trip stretched by a busy machine or network is stretched
 * unevenly: of the last {@value #READINGS} readings, the one with the shortest round trip gives the
 * offset, as NTP's clock filter does, so that a slow poll does not move when timeouts fire. Until the
 * first reading the offset is zero.
 */
final class DatabaseClock extends Clock {

    /** How many of the latest readings the offset is chosen from. */
    static final int READINGS = 8;

    private final Clock local;
    private volatile long offsetMillis;
    private volatile boolean measured;

    // Guarded by this object's monitor: the latest readings, oldest overwritten first.
    private final long[] offsets = new long[READINGS];
    private final long[] roundTrips = new long[READINGS];
    private int readings;

    DatabaseClock(Clock local) {
        this.local = local;
    }

    /** Records a reading of the database's time, taken between the local readings {@code before} and {@code after}. */
    synchronized void measured(long databaseMillis, long beforeMillis, long afterMillis) {
        int slot = readings++ % READINGS;
        offsets[slot] = databaseMillis - (beforeMillis + (afterMillis - beforeMillis) / 2);
        roundTrips[slot] = Math.max(0, afterMillis - beforeMillis);
        int best = 0;
        for (int i = 1; i < Math.min(readings, READINGS); i++) {
            if (roundTrips[i] < roundTrips[best]) {
                best = i;
            }
        }
        offsetMillis = offsets[best];
        measured = true;
    }

    /** The database's clock less this instance's, once measured. */
    Duration offset() {
        return Duration.ofMillis(offsetMillis);
    }

    boolean isMeasured() {
        return measured;
    }

    /** This instance's own clock, for the readings around a measurement. */
    Clock local() {
        return local;
    }

    @Override
    public long millis() {
        return local.millis() + offsetMillis;
    }

    @Override
    public Instant instant() {
        return local.instant().plusMillis(offsetMillis);
    }

    @Override
    public ZoneId getZone() {
        return local.getZone();
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the database's clock has no zone of its own");
    }
}
