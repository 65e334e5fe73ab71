package io.wheeltimer.spring.autoconfigure;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.origin.Origin;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Explains a {@code wheel-timer.*} value that does not even convert (such as
 * {@code tick-duration: fast}): Boot's own report names the key and the value; this one also says
 * what is allowed. Values that convert but are out of range are reported through
 * {@link org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException}.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class WheelTimerBindFailureAnalyzer extends AbstractFailureAnalyzer<BindException> {

    private static final String DURATION = "a duration such as 100ms, 1s or PT0.1S";

    private static final Map<String, String> ALLOWED = Map.of(
            "wheel-timer.tick-duration", "a positive duration, such as 1ms, 100ms, 1s or PT0.1S",
            "wheel-timer.ticks-per-wheel", "a whole number from 1 to 1073741824 (2^30)",
            "wheel-timer.shutdown.await-termination-period", "a duration of 0s or more, such as 0s, 500ms or PT30S");

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
        ConfigurationProperty property = cause.getProperty();
        String name = property != null
                ? property.getName().toString()
                : cause.getName().toString();
        if (!name.startsWith("wheel-timer.")) {
            return null;
        }
        Object value = property != null ? property.getValue() : null;
        Origin origin = property != null && property.getOrigin() != null ? property.getOrigin() : Origin.from(cause);
        String allowed = ALLOWED.getOrDefault(
                name, allowedFor(cause.getTarget().getType().resolve(Object.class)));
        String description = "Invalid value '" + value + "' for configuration property '" + name + "'"
                + (origin != null ? " (originating from '" + origin + "')" : "") + ".\n\nIt must be " + allowed + ".";
        return new FailureAnalysis(description, "Update '" + name + "' to " + allowed + ".", cause);
    }

    private static String allowedFor(Class<?> type) {
        if (type == Duration.class) {
            return DURATION;
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "a whole number";
        }
        if (type.isEnum()) {
            return "one of "
                    + Arrays.stream(type.getEnumConstants())
                            .map(constant -> ((Enum<?>) constant)
                                    .name()
                                    .toLowerCase(Locale.ROOT)
                                    .replace('_', '-'))
                            .collect(Collectors.joining(", "));
        }
        return "a value of type " + type.getSimpleName();
    }
}
