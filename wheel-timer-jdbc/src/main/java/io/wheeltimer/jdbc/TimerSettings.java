package io.wheeltimer.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.springframework.util.unit.DataSize;

/**
 * The settings of one {@link JdbcDurableTimer}, as its builder checked them, and the rules and
 * limits every duration, count and size is checked against (those of names are in {@link Names}):
 * each rule is written here once, and the builder is the only caller (the Spring Boot side hands its properties to the builder and reports its errors
 * under the property keys). Errors name the setting, the value and what is allowed.
 */
record TimerSettings(
        String tableName,
        Duration pollInterval,
        Duration lookahead,
        Duration lease,
        int batchSize,
        Duration retryDelay,
        Duration retryMaxDelay,
        int maxAttempts,
        String instanceId,
        Executor executor,
        Clock clock,
        TimeSource timeSource,
        long maxDataSize,
        DurableDataCodec codec,
        DurableTimeoutContext context) {

    /** The largest {@code maxDataSize}: what a MEDIUMTEXT column holds (16 MiB less one byte). */
    static final long MAX_DATA_SIZE_LIMIT = (1L << 24) - 1;

    /** The shortest duration a setting takes. */
    private static final Duration MIN_DURATION = Duration.ofMillis(1);

    /** The longest duration a setting takes: far below where epoch-millisecond sums overflow. */
    private static final Duration MAX_DURATION = Duration.ofDays(365);

    TimerSettings {
        if (lookahead.compareTo(pollInterval) < 0) {
            throw invalid(
                    "lookahead", lookahead, "must be at least pollInterval (" + Durations.format(pollInterval) + ")");
        }
        if (lease.compareTo(pollInterval.multipliedBy(2)) <= 0) {
            throw invalid(
                    "lease",
                    lease,
                    "must be more than twice pollInterval (" + Durations.format(pollInterval) + "), so more than "
                            + Durations.format(pollInterval.multipliedBy(2)));
        }
    }

    /** These settings with {@code judge} as the clock that deadlines and leases are read on. */
    TimerSettings withClock(Clock judge) {
        return new TimerSettings(
                tableName,
                pollInterval,
                lookahead,
                lease,
                batchSize,
                retryDelay,
                retryMaxDelay,
                maxAttempts,
                instanceId,
                executor,
                judge,
                timeSource,
                maxDataSize,
                codec,
                context);
    }

    /** The random factor of a retry's wait: the doubled delay is stretched or shrunk by up to this much. */
    static final double RETRY_JITTER = 0.2;

    /**
     * How long to wait before the retry that follows {@code failedRuns} failed runs (1 for the first
     * failure): {@code retryDelay}, doubled at each further failure, at most {@code retryMaxDelay} (never
     * less than {@code retryDelay}), times {@code 1 + RETRY_JITTER * (2 * random - 1)} for a
     * {@code random} in [0, 1), so that the timeouts that failed together during an outage do not come
     * back together.
     */
    Duration retryWait(int failedRuns, double random) {
        long capMillis = Math.max(retryDelay.toMillis(), retryMaxDelay.toMillis());
        long waitMillis = retryDelay.toMillis();
        for (int i = 1; i < failedRuns && waitMillis < capMillis; i++) {
            waitMillis *= 2;
        }
        waitMillis = Math.min(waitMillis, capMillis);
        double factor = 1 + RETRY_JITTER * (2 * random - 1);
        return Duration.ofMillis(Math.max(1, Math.round(waitMillis * factor)));
    }

    /**
     * The query timeout of the timer's own statements (polls, runs' bookkeeping, the release at a
     * stop): a quarter of the lease, 1 to 10 s, so that a hung statement fails well before the lease
     * runs out.
     */
    Duration statementTimeout() {
        long seconds = Math.max(1, Math.min(10, lease.toSeconds() / 4));
        return Duration.ofSeconds(seconds);
    }

    static Duration atLeastOneMillisecond(String setting, Duration value) {
        Objects.requireNonNull(value, () -> setting + " must not be null");
        if (value.compareTo(MIN_DURATION) < 0) {
            throw invalid(setting, value, "must be positive, at least 1ms");
        }
        if (value.compareTo(MAX_DURATION) > 0) {
            throw invalid(setting, value, "must be at most 365 days (8760h)");
        }
        return value;
    }

    static int atLeastOne(String setting, int value) {
        if (value < 1) {
            throw new InvalidSettingException(setting, value, String.valueOf(value), "must be at least 1");
        }
        return value;
    }

    /** A data size limit: at least one byte, at most what every database's data column holds. */
    static DataSize maxDataSize(DataSize value) {
        Objects.requireNonNull(value, "maxDataSize must not be null");
        if (value.toBytes() < 1 || value.toBytes() > MAX_DATA_SIZE_LIMIT) {
            throw new InvalidSettingException(
                    "maxDataSize",
                    value,
                    value.toString(),
                    "must be at least 1B and at most " + MAX_DATA_SIZE_LIMIT + "B (16MB less one byte, what"
                            + " the data column holds on MariaDB and MySQL)");
        }
        return value;
    }

    private static InvalidSettingException invalid(String setting, Duration value, String requirement) {
        return new InvalidSettingException(setting, value, Durations.format(value), requirement);
    }
}
