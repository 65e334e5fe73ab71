package io.wheeltimer.jdbc;

import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.springframework.util.unit.DataSize;

/**
 * The settings of one {@link JdbcDurableTimer}, as its builder checked them, and the rules and
 * limits every value is checked against: each rule is written here once, and the builder is the
 * only caller (the Spring Boot side hands its properties to the builder and reports its errors
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

    /** Longest task name, key and instance id, in characters: the width of their columns. */
    static final int MAX_NAME_LENGTH = 200;

    /** Width of the {@code last_error} column. */
    static final int MAX_ERROR_LENGTH = 4000;

    /** Longest table name: PostgreSQL's 63-character identifiers, less the suffixes of the derived names. */
    static final int MAX_TABLE_NAME_LENGTH = 50;

    /** Most text a context may store with a timeout: the width of the {@code trace_context} column. */
    static final int MAX_CONTEXT_LENGTH = 512;

    /** The largest {@code maxDataSize}: what a MEDIUMTEXT column holds (16 MiB less one byte). */
    static final long MAX_DATA_SIZE_LIMIT = (1L << 24) - 1;

    /** Most timeouts {@code pending} and {@code failed} return at once. */
    static final int MAX_LIMIT = 1000;

    /** The shortest duration a setting takes. */
    private static final Duration MIN_DURATION = Duration.ofMillis(1);

    /** The longest duration a setting takes: far below where epoch-millisecond sums overflow. */
    private static final Duration MAX_DURATION = Duration.ofDays(365);

    /** A table name is written into SQL, so it must be a plain identifier. */
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    TimerSettings {
        if (lookahead.compareTo(pollInterval) < 0) {
            throw invalid("lookahead", lookahead, "must be at least pollInterval (" + format(pollInterval) + ")");
        }
        if (lease.compareTo(pollInterval.multipliedBy(2)) <= 0) {
            throw invalid(
                    "lease",
                    lease,
                    "must be more than twice pollInterval (" + format(pollInterval) + "), so more than "
                            + format(pollInterval.multipliedBy(2)));
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

    static String tableName(String tableName) {
        Objects.requireNonNull(tableName, "tableName must not be null");
        if (!IDENTIFIER.matcher(tableName).matches() || tableName.length() > MAX_TABLE_NAME_LENGTH) {
            throw new InvalidSettingException(
                    "tableName",
                    tableName,
                    "\"" + tableName + "\"",
                    "must be a plain SQL identifier of at most " + MAX_TABLE_NAME_LENGTH + " characters: a letter"
                            + " or _, then letters, digits or _ (the lease table is named after it, with _instances"
                            + " appended)");
        }
        if (ReservedWords.isReserved(tableName)) {
            throw new InvalidSettingException(
                    "tableName",
                    tableName,
                    "\"" + tableName + "\"",
                    "must not be a word that H2, PostgreSQL, MariaDB or MySQL reserves (" + tableName
                            + " is one): the name is written into the timer's SQL unquoted; choose another, for"
                            + " example " + tableName.toLowerCase(Locale.ROOT) + "_timeouts");
        }
        return tableName;
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

    /** The {@code limit} of a paged read: 1 to 1000. */
    static int limit(int limit) {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit is " + limit + "; it must be 1 to " + MAX_LIMIT);
        }
        return limit;
    }

    static String instanceId(String instanceId) {
        Objects.requireNonNull(instanceId, "instanceId must not be null");
        if (!isName(instanceId)) {
            throw new InvalidSettingException("instanceId", instanceId, shown(instanceId), NAME_RULE);
        }
        return instanceId;
    }

    private static InvalidSettingException invalid(String setting, Duration value, String requirement) {
        return new InvalidSettingException(setting, value, format(value), requirement);
    }

    /** What a task name, key or instance id must be. */
    private static final String NAME_RULE = "must be a name of 1 to " + MAX_NAME_LENGTH
            + " characters (Unicode code points), not all blank, without U+0000 or unpaired surrogates";

    /**
     * A task name or key: 1 to 200 characters, counted as code points as the column counts them, not
     * all blank, and text every database stores (no U+0000, no half of a surrogate pair).
     */
    static String name(String what, String value) {
        Objects.requireNonNull(value, () -> what + " must not be null");
        if (!isName(value)) {
            throw new IllegalArgumentException(what + " is " + shown(value) + "; it " + NAME_RULE);
        }
        return value;
    }

    private static boolean isName(String value) {
        return !value.isBlank()
                && value.codePointCount(0, value.length()) <= MAX_NAME_LENGTH
                && unstorableAt(value) < 0;
    }

    /**
     * The index of the first character of {@code text} that not every database stores in a text
     * column: U+0000 (PostgreSQL refuses it) or half of a surrogate pair (no UTF-8 for it: a driver
     * writes something else, or refuses it); -1 when there is none.
     */
    static int unstorableAt(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\u0000') {
                return i;
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /** A name as an error shows it: quoted, cut to 40 characters (never inside one), with its length. */
    private static String shown(String value) {
        String printable = value.replace("\u0000", "\\u0000");
        return "\"" + truncate(printable, 40) + "\" (" + value.codePointCount(0, value.length()) + " characters)";
    }

    /** The host name and a random suffix: unique per life of a process, as two live instances must be. */
    static String defaultInstanceId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception | LinkageError e) {
            host = "instance";
        }
        if (host.isBlank()) {
            host = "instance";
        }
        return truncate(host, MAX_NAME_LENGTH - 9) + "-"
                + String.format("%08x", ThreadLocalRandom.current().nextInt());
    }

    /**
     * {@code text} as a text column can store it on every database: without U+0000 (PostgreSQL
     * refuses it), with each unpaired surrogate as U+FFFD, and cut to {@code maxLength} characters
     * without cutting a pair in two.
     */
    static String storable(String text, int maxLength) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), maxLength));
        for (int i = 0; i < text.length() && out.length() < maxLength; i++) {
            char c = text.charAt(i);
            if (c == '\u0000') {
                continue;
            }
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                if (out.length() + 2 > maxLength) {
                    break;
                }
                out.append(c).append(text.charAt(++i));
            } else {
                out.append(Character.isSurrogate(c) ? '\uFFFD' : c);
            }
        }
        return out.toString();
    }

    /** {@code value} cut to at most {@code length} code points, with "..." when cut; never inside a surrogate pair. */
    static String truncate(String value, int length) {
        if (value.codePointCount(0, value.length()) <= length) {
            return value;
        }
        return value.substring(0, value.offsetByCodePoints(0, length - 3)) + "...";
    }

    /** {@code 1s}, {@code 250ms}, the way the properties are written; ISO-8601 when finer. */
    static String format(Duration duration) {
        if (duration.getNano() == 0) {
            return duration.getSeconds() + "s";
        }
        if (duration.getNano() % 1_000_000 == 0) {
            return duration.toMillis() + "ms";
        }
        return duration.toString();
    }
}
