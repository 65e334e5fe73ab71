package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.time.Duration;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Checks the {@code wheel-timer.durable.*} values together and applies them to a builder. A bad
 * value stops the application at startup with Boot's report naming the property, the value and
 * what is allowed.
 */
final class DurableTimerSettings {

    private static final String PREFIX = "wheel-timer.durable.";

    /** The longest table name: its lease table and index add suffixes, within PostgreSQL's 63 characters. */
    static final int MAX_TABLE_NAME = 50;

    private static final Duration MIN_DURATION = Duration.ofMillis(1);

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** Longest instance id: the holder column's width. */
    static final int MAX_INSTANCE_ID = 200;

    private DurableTimerSettings() {}

    /** Applies every setting to {@code builder}, after checking it. */
    static JdbcDurableTimer.Builder apply(DurableTimerProperties properties, JdbcDurableTimer.Builder builder) {
        check(properties);
        builder.tableName(properties.getTableName())
                .pollInterval(properties.getPollInterval())
                .lookahead(properties.getLookahead())
                .lease(properties.getLease())
                .batchSize(properties.getBatchSize())
                .retryDelay(properties.getRetryDelay())
                .maxAttempts(properties.getMaxAttempts());
        String instanceId = properties.getInstanceId();
        if (instanceId != null && !instanceId.isEmpty()) {
            builder.instanceId(instanceId);
        }
        return builder;
    }

    /** Throws for the first bad value, naming it and what is allowed. */
    static void check(DurableTimerProperties properties) {
        tableName(properties.getTableName());
        Duration poll = properties.getPollInterval();
        if (poll == null || poll.compareTo(MIN_DURATION) < 0) {
            throw invalid("poll-interval", poll, "must be at least 1ms (a duration such as 500ms, 1s or PT1S)");
        }
        Duration lookahead = properties.getLookahead();
        if (lookahead == null || lookahead.compareTo(poll) < 0) {
            throw invalid(
                    "lookahead",
                    lookahead,
                    "must be at least wheel-timer.durable.poll-interval (" + poll
                            + "), so that a timeout is claimed before its deadline");
        }
        Duration lease = properties.getLease();
        if (lease == null || lease.compareTo(poll.multipliedBy(2)) <= 0) {
            throw invalid(
                    "lease",
                    lease,
                    "must be more than twice wheel-timer.durable.poll-interval (" + poll
                            + "), so that one late renewal does not lose the lease");
        }
        if (properties.getBatchSize() < 1) {
            throw invalid("batch-size", properties.getBatchSize(), "must be at least 1");
        }
        Duration retryDelay = properties.getRetryDelay();
        if (retryDelay == null || retryDelay.compareTo(MIN_DURATION) < 0) {
            throw invalid("retry-delay", retryDelay, "must be at least 1ms (a duration such as 500ms, 10s or PT10S)");
        }
        if (properties.getMaxAttempts() < 1) {
            throw invalid("max-attempts", properties.getMaxAttempts(), "must be at least 1");
        }
        String instanceId = properties.getInstanceId();
        if (instanceId != null
                && !instanceId.isEmpty()
                && (instanceId.isBlank() || instanceId.length() > MAX_INSTANCE_ID)) {
            throw invalid(
                    "instance-id",
                    instanceId,
                    "must be empty (the host name and a random suffix) or a name of 1 to " + MAX_INSTANCE_ID
                            + " characters, not only blanks");
        }
    }

    /** The table name, checked: it is written into SQL, so it must be a plain identifier. */
    static String tableName(String name) {
        if (name == null || !IDENTIFIER.matcher(name).matches() || name.length() > MAX_TABLE_NAME) {
            throw invalid(
                    "table-name",
                    name,
                    "must be a plain SQL identifier of at most " + MAX_TABLE_NAME + " characters: a letter or"
                            + " underscore, then letters, digits or underscores, such as wheel_timer_timeouts (the"
                            + " lease table is named after it, with _instances appended)");
        }
        return name;
    }

    static InvalidConfigurationPropertyValueException invalid(String key, Object value, String reason) {
        return new InvalidConfigurationPropertyValueException(PREFIX + key, value, reason);
    }
}
