package io.wheeltimer.spring.actuate;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.TimeoutInfo;
import io.wheeltimer.TimerStats;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * {@code /actuator/wheeltimer}: every {@link HashedWheelTimer} bean by name, one with its soonest
 * pending timeouts, and (only with {@code management.endpoint.wheeltimer.access=unrestricted})
 * stopping one. Durations are ISO-8601 strings.
 */
@Endpoint(id = "wheeltimer", defaultAccess = Access.READ_ONLY)
public class WheelTimerEndpoint {

    /** How many pending timeouts {@link #timer} lists. */
    static final int UPCOMING_LIMIT = 20;

    private final Supplier<Map<String, HashedWheelTimer>> timers;

    /** @param timers the timers by bean name, looked up on each request */
    public WheelTimerEndpoint(Supplier<Map<String, HashedWheelTimer>> timers) {
        this.timers = timers;
    }

    /** {@code GET /actuator/wheeltimer}: {@code {"timers": {name: summary}}}. */
    @ReadOperation
    public Map<String, Object> timers() {
        Map<String, Object> summaries = new LinkedHashMap<>();
        timers.get().forEach((name, timer) -> summaries.put(name, summary(timer)));
        return Map.of("timers", summaries);
    }

    /** {@code GET /actuator/wheeltimer/{name}}: the summary plus {@code upcoming}; 404 if unknown. */
    @ReadOperation
    public Map<String, Object> timer(@Selector String name) {
        HashedWheelTimer timer = timers.get().get(name);
        if (timer == null) {
            return null;
        }
        Map<String, Object> detail = summary(timer);
        try {
            detail.put("upcoming", timer.upcoming(UPCOMING_LIMIT).stream().map(WheelTimerEndpoint::describe).toList());
        } catch (IllegalStateException busy) {
            // A task holds the worker: the summary (tickLag above all) is what helps now.
            detail.put("upcoming", List.of());
            detail.put("upcomingUnavailable", busy.getMessage());
        }
        return detail;
    }

    /** {@code POST /actuator/wheeltimer/{name}}: stops that timer; a second call reports 0 unprocessed. */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> stop(@Selector String name) {
        HashedWheelTimer timer = timers.get().get(name);
        if (timer == null) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        int unprocessed = timer.stop().size();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", name);
        body.put("state", timer.state().name());
        body.put("unprocessed", unprocessed);
        return new WebEndpointResponse<>(body);
    }

    private static Map<String, Object> summary(HashedWheelTimer timer) {
        TimerStats stats = timer.stats();
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("state", stats.state().name());
        summary.put("tickDuration", timer.tickDuration().toString());
        summary.put("ticksPerWheel", timer.ticksPerWheel());
        summary.put("maxPendingTimeouts", timer.maxPendingTimeouts());
        summary.put("hierarchical", timer.isHierarchical());
        summary.put("pending", stats.pending());
        summary.put("scheduled", stats.scheduled());
        summary.put("expired", stats.expired());
        summary.put("cancelled", stats.cancelled());
        summary.put("rejected", stats.rejected());
        summary.put("failed", stats.failed());
        summary.put("ticks", stats.ticks());
        summary.put("tickLag", stats.tickLag().toString());
        return summary;
    }

    private static Map<String, String> describe(TimeoutInfo info) {
        Map<String, String> timeout = new LinkedHashMap<>();
        timeout.put("task", info.task());
        timeout.put("remaining", info.remaining().toString());
        return timeout;
    }
}
