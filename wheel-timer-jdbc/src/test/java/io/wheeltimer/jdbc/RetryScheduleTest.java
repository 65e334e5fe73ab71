package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The wait before each retry of a failed run: the retry delay, doubled at each further failure, at
 * most the retry max delay, times a random factor between 0.8 and 1.2.
 */
class RetryScheduleTest {

    private static TimerSettings settings(Duration retryDelay, Duration retryMaxDelay, int maxAttempts) {
        return new TimerSettings(
                "t",
                Duration.ofSeconds(1),
                Duration.ofSeconds(10),
                Duration.ofSeconds(30),
                1000,
                retryDelay,
                retryMaxDelay,
                maxAttempts,
                "i",
                Runnable::run,
                Clock.systemUTC(),
                TimeSource.INSTANCE,
                1000,
                null,
                null);
    }

    private static final TimerSettings DEFAULTS = settings(
            JdbcDurableTimer.DEFAULT_RETRY_DELAY,
            JdbcDurableTimer.DEFAULT_RETRY_MAX_DELAY,
            JdbcDurableTimer.DEFAULT_MAX_ATTEMPTS);

    @ParameterizedTest(name = "after {0} failed runs: {1}")
    @CsvSource({
        "1, PT10S",
        "2, PT20S",
        "3, PT40S",
        "4, PT80S",
        "5, PT160S",
        "6, PT320S",
        "7, PT10M",
        "9, PT10M",
        "1000, PT10M"
    })
    void eachRetryWaitsTwiceAsLongAsTheOneBeforeUpToTheMaxDelay(int failedRuns, Duration expected) {
        assertThat(DEFAULTS.retryWait(failedRuns, 0.5)).isEqualTo(expected);
    }

    @Test
    void theRandomFactorStretchesOrShrinksEachWaitByUpToTwentyPercent() {
        assertThat(DEFAULTS.retryWait(1, 0.0)).isEqualTo(Duration.ofSeconds(8));
        assertThat(DEFAULTS.retryWait(1, 0.999_999)).isBetween(Duration.ofMillis(11_999), Duration.ofSeconds(12));
        assertThat(DEFAULTS.retryWait(20, 0.0)).isEqualTo(Duration.ofMinutes(8));
        assertThat(DEFAULTS.retryWait(20, 0.999_999)).isBetween(Duration.ofMillis(719_999), Duration.ofMinutes(12));
    }

    @Test
    void theDefaultsRideOutAThirtyMinuteOutageWithoutGivingUpEvenWithTheShortestWaits() {
        Duration shortest = Duration.ZERO;
        // maxAttempts runs: the first, then one retry after each failure but the last.
        for (int failed = 1; failed < JdbcDurableTimer.DEFAULT_MAX_ATTEMPTS; failed++) {
            shortest = shortest.plus(DEFAULTS.retryWait(failed, 0.0));
        }
        assertThat(shortest).isGreaterThan(Duration.ofMinutes(30));
    }

    @Test
    void aMaxDelayShorterThanTheRetryDelayCountsAsTheRetryDelay() {
        TimerSettings settings = settings(Duration.ofMinutes(20), Duration.ofMinutes(10), 5);

        assertThat(settings.retryWait(1, 0.5)).isEqualTo(Duration.ofMinutes(20));
        assertThat(settings.retryWait(4, 0.5)).isEqualTo(Duration.ofMinutes(20));
    }

    @Test
    void aTinyDelayNeverWaitsLessThanAMillisecond() {
        TimerSettings settings = settings(Duration.ofMillis(1), Duration.ofMillis(1), 5);

        assertThat(settings.retryWait(1, 0.0)).isEqualTo(Duration.ofMillis(1));
    }
}
