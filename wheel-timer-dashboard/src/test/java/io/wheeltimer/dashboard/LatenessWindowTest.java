package io.wheeltimer.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.spring.autoconfigure.durable.LatenessBuckets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The last five minutes of lateness per task: percentiles, max, count, buckets, and forgetting. */
class LatenessWindowTest {

    /** A clock the test moves. */
    static final class ManualClock extends Clock {
        Instant now = Instant.parse("2030-01-01T00:00:00Z");

        @Override
        public ZoneId getZone() {
            return ZoneId.of("UTC");
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    private final ManualClock clock = new ManualClock();
    private final LatenessWindow window = new LatenessWindow(clock);

    @Test
    void figuresAreTheNearestRankPercentilesMaxAndCountInMilliseconds() {
        LongStream.rangeClosed(1, 100).forEach(ms -> window.record("a", Duration.ofMillis(ms)));

        LatenessWindow.Figures figures = window.figures("a");

        assertThat(figures.count()).isEqualTo(100);
        assertThat(figures.p50Millis()).isEqualTo(50);
        assertThat(figures.p99Millis()).isEqualTo(99);
        assertThat(figures.maxMillis()).isEqualTo(100);
        assertThat(window.figures("other")).isEqualTo(LatenessWindow.Figures.NONE);
    }

    @Test
    void bucketsAreTheLatenessTimersWithAnOverflow() {
        window.record("a", Duration.ofMillis(1)); // <= 1ms
        window.record("a", Duration.ofMillis(2)); // <= 5ms
        window.record("a", Duration.ofMillis(-30)); // early counts as 0: <= 1ms
        window.record("a", Duration.ofMinutes(2)); // above every bound

        long[] buckets = window.figures("a").buckets();

        assertThat(buckets).hasSize(LatenessBuckets.BOUNDS.size() + 1);
        assertThat(buckets[0]).isEqualTo(2);
        assertThat(buckets[1]).isEqualTo(1);
        assertThat(buckets[buckets.length - 1]).isEqualTo(1);
        assertThat(LongStream.of(buckets).sum()).isEqualTo(4);
    }

    @Test
    void samplesOlderThanFiveMinutesAreForgotten() {
        window.record("a", Duration.ofMillis(900));
        clock.now = clock.now.plus(Duration.ofMinutes(3));
        window.record("a", Duration.ofMillis(7));
        assertThat(window.figures("a").count()).isEqualTo(2);

        clock.now = clock.now.plus(Duration.ofMinutes(2)).plusSeconds(10);

        assertThat(window.figures("a").count()).isEqualTo(1);
        assertThat(window.figures("a").maxMillis()).isEqualTo(7);

        clock.now = clock.now.plus(Duration.ofMinutes(10));
        assertThat(window.figures("a")).isEqualTo(LatenessWindow.Figures.NONE);
        window.record("a", Duration.ofMillis(3));
        assertThat(window.figures("a").count()).as("a reused slot starts empty").isEqualTo(1);
    }
}
