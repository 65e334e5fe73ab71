package io.wheeltimer.spring.annotated;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Reports a {@code @WheelTimeout} or {@code @WheelTimeLimit} that cannot apply to its method (a
 * return type, a duration, a timer or an executor that is not allowed) as Boot reports a bad
 * property: the description names the method, the value and what is allowed; the action says what
 * to change. Ahead of Boot's own analyzers, which would otherwise describe a cause underneath it.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class WheelAnnotationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidWheelAnnotationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidWheelAnnotationException cause) {
        String description = cause.getAnnotation() + " on method " + cause.getMethod() + " cannot be applied: "
                + cause.getProblem() + ".\n\n" + capitalize(cause.getAllowed()) + ".";
        return new FailureAnalysis(description, cause.getAction(), cause);
    }

    private static String capitalize(String text) {
        return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }
}
