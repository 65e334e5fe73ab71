package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class DatabaseClockTest {

    private final DatabaseClock clock = new DatabaseClock(Clock.fixed(Instant.ofEpochMilli(1_000_000), ZoneOffset.UTC));

    @Test
    void unmeasuredItIsTheLocalClock() {
        assertThat(clock.isMeasured()).isFalse();
        assertThat(clock.millis()).isEqualTo(1_000_000);
    }

    @Test
    void theOffsetIsTheDatabasesTimeLessTheMiddleOfTheRoundTrip() {
        clock.measured(5_000, 1_000, 1_004);

        assertThat(clock.offset()).isEqualTo(Duration.ofMillis(3_998));
        assertThat(clock.millis()).isEqualTo(1_003_998);
    }

    @Test
    void aSlowRoundTripDoesNotMoveTheOffsetThatAFastOneMeasured() {
        clock.measured(1_002, 1_000, 1_002); // fast: offset 1
        // A busy machine: the answer waited 80 ms on its way back, so the middle of the round trip
        // is 40 ms after the database read its clock.
        clock.measured(2_001, 2_000, 2_080);

        assertThat(clock.offset()).isEqualTo(Duration.ofMillis(1));
    }

    @Test
    void theFastestOfTheLatestReadingsCountsAndOlderOnesAreForgotten() {
        clock.measured(1_002, 1_000, 1_002); // offset 1, round trip 2
        for (int i = 1; i < DatabaseClock.READINGS; i++) {
            long before = 1_000L * (i + 1);
            clock.measured(before + 10 + 7, before, before + 20); // offset 7, round trip 20
        }
        assertThat(clock.offset()).isEqualTo(Duration.ofMillis(1));

        long before = 100_000;
        clock.measured(before + 10 + 7, before, before + 20); // the fast reading is now the ninth latest

        assertThat(clock.offset()).isEqualTo(Duration.ofMillis(7));
    }
}
