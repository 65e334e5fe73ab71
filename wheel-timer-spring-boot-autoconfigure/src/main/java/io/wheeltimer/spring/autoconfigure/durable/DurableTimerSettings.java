package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.jdbc.InvalidSettingException;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Hands the {@code wheel-timer.durable.*} values to the library's builder, which checks them (its
 * rules are the only ones), and reports what it refuses under the property key: the startup report
 * names the key, the value and what is allowed, with the other settings a rule mentions named by
 * their keys too.
 */
final class DurableTimerSettings {

    private static final String PREFIX = "wheel-timer.durable.";

    /** The builder's name of each setting, and its property key. */
    private static final Map<String, String> KEYS = Map.of(
            "tableName", "table-name",
            "pollInterval", "poll-interval",
            "lookahead", "lookahead",
            "lease", "lease",
            "batchSize", "batch-size",
            "retryDelay", "retry-delay",
            "retryMaxDelay", "retry-max-delay",
            "maxAttempts", "max-attempts",
            "maxDataSize", "max-data-size",
            "instanceId", "instance-id");

    private static final Pattern SETTING_NAME = Pattern.compile("\\b(" + String.join("|", KEYS.keySet()) + ")\\b");

    private DurableTimerSettings() {}

    /** Applies every setting to {@code builder}; a value it refuses stops startup under its key. */
    static JdbcDurableTimer.Builder apply(DurableTimerProperties properties, JdbcDurableTimer.Builder builder) {
        set("table-name", properties.getTableName(), builder::tableName);
        set("poll-interval", properties.getPollInterval(), builder::pollInterval);
        set("lookahead", properties.getLookahead(), builder::lookahead);
        set("lease", properties.getLease(), builder::lease);
        set("batch-size", properties.getBatchSize(), builder::batchSize);
        set("retry-delay", properties.getRetryDelay(), builder::retryDelay);
        set("retry-max-delay", properties.getRetryMaxDelay(), builder::retryMaxDelay);
        set("max-attempts", properties.getMaxAttempts(), builder::maxAttempts);
        set("max-data-size", properties.getMaxDataSize(), builder::maxDataSize);
        set("time-source", properties.getTimeSource(), builder::timeSource);
        String instanceId = properties.getInstanceId();
        if (instanceId != null && !instanceId.isEmpty()) {
            set("instance-id", instanceId, builder::instanceId);
        }
        return builder;
    }

    /** Builds the timer; a combination of values the builder refuses stops startup under the key it names. */
    static JdbcDurableTimer build(JdbcDurableTimer.Builder builder) {
        return reported(builder::build);
    }

    /** The table name, checked as the builder checks it (the schema is written before the timer exists). */
    static String tableName(String name) {
        return reported(() -> JdbcDurableTimer.checkTableName(name));
    }

    static InvalidConfigurationPropertyValueException invalid(String key, Object value, String reason) {
        return new InvalidConfigurationPropertyValueException(PREFIX + key, value, reason);
    }

    private static <T> void set(String key, T value, Consumer<T> setter) {
        if (value == null) {
            throw invalid(key, null, "must be set");
        }
        reported(() -> {
            setter.accept(value);
            return null;
        });
    }

    private static <T> T reported(Supplier<T> call) {
        try {
            return call.get();
        } catch (InvalidSettingException e) {
            String key = KEYS.getOrDefault(e.setting(), e.setting());
            throw invalid(key, e.value(), withKeys(e.requirement()));
        }
    }

    /** The requirement with each builder setting it names written as its property key. */
    private static String withKeys(String requirement) {
        Matcher names = SETTING_NAME.matcher(requirement);
        return names.replaceAll(match -> Matcher.quoteReplacement(PREFIX + KEYS.get(match.group(1))));
    }
}
