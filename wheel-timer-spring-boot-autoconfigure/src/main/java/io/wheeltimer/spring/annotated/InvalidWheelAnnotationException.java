package io.wheeltimer.spring.annotated;

import io.wheeltimer.spring.WheelTimeLimit;
import io.wheeltimer.spring.WheelTimeout;
import java.util.Objects;

/**
 * A {@link WheelTimeout @WheelTimeout} or {@link WheelTimeLimit @WheelTimeLimit} that cannot apply
 * to its method: a return type, a duration, a timer or an executor that is not allowed. Thrown at
 * startup, when the method's bean is created (or, for the timer chosen by type, once every
 * singleton exists), so that the application does not start; Spring Boot reports it as a failure
 * analysis naming the method, the value and what is allowed.
 */
public class InvalidWheelAnnotationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String annotation;
    private final String method;
    private final String problem;
    private final String allowed;
    private final String action;

    /**
     * @param annotation the annotation, e.g. {@code @WheelTimeout}
     * @param method the method, e.g. {@code com.example.Orders.cancel(String)}
     * @param problem what is wrong, naming the value, e.g. {@code delay 'soon' is not a duration}
     * @param allowed what is allowed instead, e.g. {@code use a duration such as 30s}
     * @param action what to change, as a sentence
     * @param cause what went wrong underneath, or null
     */
    InvalidWheelAnnotationException(
            String annotation, String method, String problem, String allowed, String action, Throwable cause) {
        super(annotation + " on " + method + ": " + problem + "; " + allowed + ". " + action, cause);
        this.annotation = Objects.requireNonNull(annotation, "annotation");
        this.method = Objects.requireNonNull(method, "method");
        this.problem = Objects.requireNonNull(problem, "problem");
        this.allowed = Objects.requireNonNull(allowed, "allowed");
        this.action = Objects.requireNonNull(action, "action");
    }

    InvalidWheelAnnotationException(String annotation, String method, String problem, String allowed, String action) {
        this(annotation, method, problem, allowed, action, null);
    }

    /** The annotation, e.g. {@code @WheelTimeout}. */
    public String getAnnotation() {
        return annotation;
    }

    /** The method as tasks and logs name it, e.g. {@code com.example.Orders.cancel(String)}. */
    public String getMethod() {
        return method;
    }

    /** What is wrong, naming the value, e.g. {@code delay 'soon' is not a duration}. */
    public String getProblem() {
        return problem;
    }

    /** What is allowed instead. */
    public String getAllowed() {
        return allowed;
    }

    /** What to change, as a sentence. */
    public String getAction() {
        return action;
    }
}
