package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The database's clock as an instance reads it: a monotonic reading plus the offset of the fastest
 * recent reading, never moved by the wall clock, erring late, and read before its first use.
 */
class DatabaseClockTest {

    private static final long MS = 1_000_000;

    /** The monotonic reading, in nanoseconds, moved by hand. */
    private final AtomicLong monotonic = new AtomicLong(7 * MS);
    /** The wall clock, in epoch milliseconds, moved (stepped) by hand. */
    private final AtomicLong wall = new AtomicLong(1_000_000);
    /** What the database answers when read, and how many times it was read. */
    private final AtomicLong database = new AtomicLong(5_000_000);

    private final AtomicInteger reads = new AtomicInteger();

    private final DatabaseClock clock = new DatabaseClock(new SteppingClock(wall::get), monotonic::get, () -> {
        reads.incrementAndGet();
        return database.get();
    });

    @Test
    void theFirstUseReadsTheDatabasesTimeRatherThanTrustingTheLocalClock() {
        assertThat(clock.isMeasured()).isFalse();

        assertThat(clock.millis()).isEqualTo(5_000_000);
        assertThat(reads).hasValue(1);

        monotonic.addAndGet(250 * MS);
        assertThat(clock.millis()).isEqualTo(5_000_250);
        assertThat(reads).as("read once, then measured at each lease renewal").hasValue(1);
    }

    @Test
    void theTimeIsTheDatabasesAtTheMiddleOfTheRoundTripPlusWhatTheMonotonicClockCountedSince() {
        clock.measured(5_000, 1_000 * MS, 1_004 * MS, 1_000_000);
        monotonic.set(1_010 * MS);

        // The reading was taken, as far as anyone can tell, at the round trip's middle (1,002 ms).
        assertThat(clock.millis()).isEqualTo(5_008);
    }

    @Test
    void theMiddleOfAnOddRoundTripIsRoundedToItsLaterSideSoTheClockErrsLate() {
        clock.measured(5_000, 1_000 * MS, 1_000 * MS + 3, 1_000_000); // a round trip of 3 ns
        monotonic.set(1_000 * MS + 1); // the earliest moment the middle (1.5 ns) could be taken for

        // Rounded down, the middle would be 1 ns after 1,000 ms, and the clock would say 5,000 ms now.
        assertThat(clock.millis()).isEqualTo(4_999);
    }

    @Test
    void aStepOfTheWallClockChangesNothingAboutTheDatabasesTime() {
        clock.measured(5_000, 1_000 * MS, 1_002 * MS, 1_000_000);
        monotonic.set(2_001 * MS);
        long before = clock.millis();

        wall.addAndGet(30_000); // NTP steps the wall clock 30 s forward
        long afterForward = clock.millis();
        wall.addAndGet(-60_000); // and then 30 s back behind where it was
        long afterBackward = clock.millis();

        assertThat(before).isEqualTo(6_000);
        assertThat(afterForward).isEqualTo(6_000);
        assertThat(afterBackward).isEqualTo(6_000);
    }

    @Test
    void aReadingAfterAWallClockStepKeepsTheTimeAndReportsTheWallClocksNewOffset() {
        clock.measured(5_000, 1_000 * MS, 1_002 * MS, 1_000_000); // the wall clock is 995 s behind
        wall.addAndGet(30_000);
        monotonic.set(2_000 * MS);
        clock.measured(6_000, 2_000 * MS, 2_020 * MS, 1_031_020); // a slower reading, after the step

        monotonic.set(3_001 * MS);
        assertThat(clock.millis()).as("the fast reading still counts").isEqualTo(7_000);
        assertThat(clock.offset()).isEqualTo(Duration.ofMillis(6_000 - (1_031_020 - 10)));
    }

    @Test
    void aSlowRoundTripDoesNotMoveTheTimeThatAFastOneMeasured() {
        clock.measured(1_002, 1_000 * MS, 1_002 * MS, 0); // fast: the database is 1 ms ahead
        // A busy machine: the answer waited 80 ms on its way back, so the middle of the round trip
        // is 40 ms after the database read its clock.
        clock.measured(2_001, 2_000 * MS, 2_080 * MS, 0);

        monotonic.set(3_000 * MS);
        assertThat(clock.millis()).isEqualTo(3_001);
    }

    @Test
    void theFastestOfTheLatestReadingsCountsAndOlderOnesAreForgotten() {
        clock.measured(1_002, 1_000 * MS, 1_002 * MS, 0); // ahead by 1, round trip 2
        for (int i = 1; i < DatabaseClock.READINGS; i++) {
            long before = 1_000L * (i + 1);
            clock.measured(before + 10 + 7, before * MS, (before + 20) * MS, 0); // ahead by 7, round trip 20
        }
        monotonic.set(200_000 * MS);
        assertThat(clock.millis()).isEqualTo(200_001);

        long before = 100_000;
        clock.measured(before + 10 + 7, before * MS, (before + 20) * MS, 0); // the fast one is now the ninth latest

        assertThat(clock.millis()).isEqualTo(200_007);
    }

    @Test
    void theMonotonicReadingMayWrapAroundZeroOrStartNegative() {
        monotonic.set(Long.MAX_VALUE - 5 * MS);
        clock.measured(1_700_000_000_000L, Long.MAX_VALUE - 5 * MS, Long.MAX_VALUE - 5 * MS, 0);

        monotonic.set(Long.MAX_VALUE - 5 * MS + 10 * MS); // overflows past Long.MAX_VALUE

        assertThat(clock.millis()).isEqualTo(1_700_000_000_010L);
    }
}
