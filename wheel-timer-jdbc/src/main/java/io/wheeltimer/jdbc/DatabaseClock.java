package io.wheeltimer.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;

/**
 * The database's clock as this instance reads it: its own clock plus the offset measured at the
 * last lease renewal (the database's time, less the middle of the round trip that read it). Until
 * the first measurement the offset is zero.
 */
final class DatabaseClock extends Clock {

    private final Clock local;
    private volatile long offsetMillis;
    private volatile boolean measured;

    DatabaseClock(Clock local) {
        this.local = local;
    }

    /** Records a reading of the database's time, taken between the local readings {@code before} and {@code after}. */
    void measured(long databaseMillis, long beforeMillis, long afterMillis) {
        offsetMillis = databaseMillis - (beforeMillis + (afterMillis - beforeMillis) / 2);
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
