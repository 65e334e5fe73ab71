package io.wheeltimer.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A wall clock in UTC that a test steps by hand, as NTP or an operator would: a reading (a counter the
 * test sets, or the system's clock) plus the steps taken so far, in milliseconds.
 */
final class SteppingClock extends Clock {

    private final LongSupplier readingMillis;
    private final AtomicLong stepMillis = new AtomicLong();

    SteppingClock(LongSupplier readingMillis) {
        this.readingMillis = readingMillis;
    }

    /** The system's clock, stepped by hand. */
    static SteppingClock ofSystem() {
        return new SteppingClock(System::currentTimeMillis);
    }

    void step(Duration by) {
        stepMillis.addAndGet(by.toMillis());
    }

    @Override
    public long millis() {
        return readingMillis.getAsLong() + stepMillis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException();
    }
}
