package io.wheeltimer.spring.autoconfigure.durable;

import java.lang.reflect.Method;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.util.ReflectionUtils;

/**
 * Reports a durable timeouts' table that cannot be used (missing, made by an earlier version, or
 * another table of that name) as Boot's startup report: what is wrong, and the fix (the script, or
 * {@code wheel-timer.durable.initialize-schema=always}). Found by its class name, since
 * {@code wheel-timer-jdbc} is optional beside this module.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class DurableTableFailureAnalyzer implements FailureAnalyzer {

    private static final String EXCEPTION = "io.wheeltimer.jdbc.DurableTableException";

    @Override
    public FailureAnalysis analyze(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause.getClass().getName().equals(EXCEPTION)) {
                String fix = String.valueOf(call(cause, "fix"));
                String message = cause.getMessage();
                String description = message.endsWith(fix)
                        ? message.substring(0, message.length() - fix.length()).trim()
                        : message;
                return new FailureAnalysis(description, fix, cause);
            }
        }
        return null;
    }

    private static Object call(Throwable exception, String accessor) {
        Method method = ReflectionUtils.findMethod(exception.getClass(), accessor);
        return method == null ? null : ReflectionUtils.invokeMethod(method, exception);
    }
}
