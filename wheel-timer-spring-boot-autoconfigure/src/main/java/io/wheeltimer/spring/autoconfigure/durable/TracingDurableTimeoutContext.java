package io.wheeltimer.spring.autoconfigure.durable;

import io.micrometer.tracing.CurrentTraceContext;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.DurableTimeoutContext;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * One trace from the {@code schedule} of a durable timeout to its run, with Micrometer Tracing: the
 * trace context current when it is scheduled is stored with the timeout as a W3C {@code traceparent}
 * ({@code 00-<trace id>-<span id>-<flags>}, whatever propagation the application's requests use), and
 * each run of its handler starts in that context, so the run's observation ({@code wheel.timer.task})
 * is a child span of the span that scheduled it: the same trace, however much later, on whichever
 * instance.
 *
 * <p>Scheduled with no current span, nothing is stored and the run starts a trace of its own. A
 * stored value that is not a {@code traceparent} is logged once at DEBUG and ignored: the handler
 * runs all the same.
 */
final class TracingDurableTimeoutContext implements DurableTimeoutContext {

    private static final Log logger = LogFactory.getLog(TracingDurableTimeoutContext.class);

    /** Version 00: 32 hex digits of trace id, 16 of parent span id, 2 of flags (01: sampled). */
    private static final Pattern TRACEPARENT = Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})");

    private static final String ZERO_TRACE_ID = "0".repeat(32);
    private static final String ZERO_SPAN_ID = "0".repeat(16);

    private final Tracer tracer;

    TracingDurableTimeoutContext(Tracer tracer) {
        this.tracer = Objects.requireNonNull(tracer, "tracer must not be null");
    }

    @Override
    public String capture() {
        TraceContext current = tracer.currentTraceContext().context();
        if (current == null || current.traceId() == null || current.spanId() == null) {
            return null;
        }
        String traceId = leftPadded(current.traceId(), 32);
        String spanId = leftPadded(current.spanId(), 16);
        if (traceId == null || spanId == null) {
            return null;
        }
        return "00-" + traceId + "-" + spanId + "-" + (Boolean.TRUE.equals(current.sampled()) ? "01" : "00");
    }

    @Override
    @SuppressWarnings("try") // the scope makes the stored context current for the handler
    public void run(String stored, DurableTimeout timeout, Callable<Void> handler) throws Exception {
        TraceContext parent = parse(stored, timeout);
        if (parent == null) {
            handler.call();
            return;
        }
        try (CurrentTraceContext.Scope scope = tracer.currentTraceContext().newScope(parent)) {
            handler.call();
        }
    }

    private TraceContext parse(String stored, DurableTimeout timeout) {
        if (stored == null) {
            return null;
        }
        Matcher traceparent = TRACEPARENT.matcher(stored);
        if (!traceparent.matches()
                || traceparent.group(1).equals(ZERO_TRACE_ID)
                || traceparent.group(2).equals(ZERO_SPAN_ID)) {
            if (logger.isDebugEnabled()) {
                logger.debug("The trace context stored with the durable timeout of task '" + timeout.task()
                        + "' for key '" + timeout.key() + "' is not a W3C traceparent; it runs in a trace of its own");
            }
            return null;
        }
        boolean sampled = (Integer.parseInt(traceparent.group(3), 16) & 1) == 1;
        return tracer.traceContextBuilder()
                .traceId(traceparent.group(1))
                .spanId(traceparent.group(2))
                .sampled(sampled)
                .build();
    }

    /** {@code hex} in lower case, left-padded with zeros to {@code length}; null if it is not hex or too long. */
    private static String leftPadded(String hex, int length) {
        String lower = hex.toLowerCase(Locale.ROOT);
        if (lower.isEmpty() || lower.length() > length || !lower.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            return null;
        }
        return "0".repeat(length - lower.length()) + lower;
    }

    @Override
    public String toString() {
        return "W3C traceparent of the current span, by " + tracer;
    }
}
