package io.wheeltimer.spring.annotated;

import io.wheeltimer.spring.WheelTimeLimit;
import io.wheeltimer.spring.WheelTimeout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.StringValueResolver;

/**
 * The attributes {@link WheelTimeout @WheelTimeout} and {@link WheelTimeLimit @WheelTimeLimit}
 * share, checked the same way at startup: a duration attribute ({@code 30s}, {@code PT1M},
 * {@code ${...}}, a plain number in a unit), and {@code ${...}} in a string attribute.
 */
final class AnnotatedDurations {

    /** Durations beyond this do not fit in a long of nanoseconds. */
    private static final Duration MAX = Duration.ofNanos(Long.MAX_VALUE);

    private AnnotatedDurations() {}

    /**
     * Resolves and parses {@code text}, or throws naming the annotation, the method and the value.
     *
     * @param annotation the annotation, e.g. {@code @WheelTimeout}
     * @param method the method as {@link AnnotatedMethods#describe} names it
     * @param attribute the attribute, e.g. {@code delay}
     */
    static Duration parse(
            String annotation,
            String method,
            String attribute,
            String text,
            TimeUnit unit,
            StringValueResolver resolver) {
        String resolved = resolve(annotation, method, attribute, text, resolver);
        String problem;
        if (resolved.isBlank()) {
            problem = "is empty";
        } else {
            try {
                Duration duration = DurationStyle.detectAndParse(resolved.trim(), unit.toChronoUnit());
                if (duration.isNegative()) {
                    problem = "is negative";
                } else if (duration.compareTo(MAX) > 0) {
                    problem = "is too long (more than about 292 years)";
                } else {
                    return duration;
                }
            } catch (RuntimeException e) {
                problem = "is not a duration";
            }
        }
        String given = text.equals(resolved) ? "'" + text + "'" : "'" + text + "' (resolved to '" + resolved + "')";
        String allowed = "a duration such as 30s, 500ms or PT1M, a ${...} placeholder, or a plain number of "
                + unit.name().toLowerCase();
        throw new InvalidWheelAnnotationException(
                annotation,
                method,
                attribute + " " + given + " " + problem,
                "use " + allowed,
                "Change the " + attribute + " of " + annotation + " on " + method
                        + (text.equals(resolved) ? "" : " (or the property its placeholder reads)") + " to " + allowed
                        + ".");
    }

    /**
     * Resolves {@code ${...}} in {@code text}, or throws naming the annotation, the method and the
     * placeholder; without a resolver (outside an application context) the text as it is.
     */
    static String resolve(
            String annotation, String method, String attribute, String text, StringValueResolver resolver) {
        try {
            String resolved = resolver != null && !text.isEmpty() ? resolver.resolveStringValue(text) : text;
            return resolved != null ? resolved : "";
        } catch (IllegalArgumentException unresolvable) {
            throw new InvalidWheelAnnotationException(
                    annotation,
                    method,
                    attribute + " '" + text + "' cannot be resolved: " + unresolvable.getMessage(),
                    "a ${...} placeholder needs its property set, or a default after a colon (${name:default})",
                    "Set the property that the " + attribute + " of " + annotation + " on " + method
                            + " reads, or give its placeholder a default.",
                    unresolvable);
        }
    }
}
