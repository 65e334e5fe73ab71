package io.wheeltimer.spring;

import io.wheeltimer.Timer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.StringValueResolver;

/**
 * The attributes {@link WheelTimeout @WheelTimeout} and {@link WheelTimeLimit @WheelTimeLimit}
 * share, checked the same way at startup: a duration attribute ({@code 30s}, {@code PT1M},
 * {@code ${...}}, a plain number in a unit) and the timer bean to use.
 */
final class AnnotatedDurations {

    /** Durations beyond this do not fit in a long of nanoseconds. */
    private static final Duration MAX = Duration.ofNanos(Long.MAX_VALUE);

    private AnnotatedDurations() {}

    /**
     * Resolves and parses {@code text}, or throws naming the annotation, the method and the value.
     *
     * @param what the annotation and attribute for the message, e.g. {@code "@WheelTimeout on X: delay"}
     */
    static Duration parse(String what, String text, TimeUnit unit, StringValueResolver resolver) {
        String resolved;
        try {
            resolved = resolver != null && !text.isEmpty() ? resolver.resolveStringValue(text) : text;
        } catch (IllegalArgumentException unresolvable) {
            throw new IllegalStateException(
                    what + " '" + text + "' cannot be resolved: " + unresolvable.getMessage(), unresolvable);
        }
        String problem;
        if (resolved == null || resolved.isBlank()) {
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
        throw new IllegalStateException(what + " " + given + " " + problem
                + "; use a duration such as 30s, 500ms or PT1M, a ${...} placeholder, or a plain number of "
                + unit.name().toLowerCase());
    }

    /**
     * The bean name of the timer to use: {@code timerName} if it names a {@link Timer} bean, else
     * the only (or only primary) Timer bean, here or in a parent context; throws naming {@code what}.
     *
     * @param what the annotation and method for the message, e.g. {@code "@WheelTimeout on X"}
     * @param attribute how the annotation names a timer, for the advice in the message
     */
    static String timerBean(String what, String timerName, String attribute, ListableBeanFactory beanFactory) {
        String[] timers = BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, Timer.class);
        if (!timerName.isEmpty()) {
            if (!Arrays.asList(timers).contains(timerName)) {
                throw new IllegalStateException(what + ": timer '" + timerName
                        + "' is not the name of an io.wheeltimer.Timer bean; Timer beans: " + Arrays.toString(timers));
            }
            return timerName;
        }
        if (timers.length == 0) {
            throw new IllegalStateException(what + ": there is no io.wheeltimer.Timer bean to use");
        }
        if (timers.length == 1) {
            return timers[0];
        }
        ConfigurableListableBeanFactory factory = beanFactory instanceof ConfigurableListableBeanFactory c ? c : null;
        String[] primary = Arrays.stream(timers)
                .filter(name -> factory != null
                        && factory.containsBeanDefinition(name)
                        && factory.getBeanDefinition(name).isPrimary())
                .toArray(String[]::new);
        if (primary.length != 1) {
            throw new IllegalStateException(what + ": there are several Timer beans " + Arrays.toString(timers)
                    + " and none is primary; name one with " + attribute);
        }
        return primary[0];
    }
}
