package io.wheeltimer.spring.autoconfigure;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.TimeoutInfo;
import io.wheeltimer.TimerStats;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.util.MimeType;

/**
 * {@code /actuator/wheeltimer}: every {@link HashedWheelTimer} bean by name, one with its soonest
 * pending timeouts, and (only with {@code management.endpoint.wheeltimer.access=unrestricted})
 * stopping one. Durations are ISO-8601 strings. An unknown name answers 404 with an RFC 9457
 * problem detail that names the known ones. {@link WheelTimerEndpointContributor}s add sections to
 * the listing.
 */
@Endpoint(id = "wheeltimer", defaultAccess = Access.READ_ONLY)
public class WheelTimerEndpoint {

    /** How many pending timeouts {@link #timer} lists. */
    static final int UPCOMING_LIMIT = 20;

    private static final MimeType PROBLEM_JSON = MimeType.valueOf("application/problem+json");

    private final Supplier<Map<String, HashedWheelTimer>> timers;
    private final Supplier<List<WheelTimerEndpointContributor>> contributors;

    /** @param timers the timers by bean name, looked up on each request */
    public WheelTimerEndpoint(Supplier<Map<String, HashedWheelTimer>> timers) {
        this(timers, List::of);
    }

    /**
     * @param timers the timers by bean name, looked up on each request
     * @param contributors the further sections of {@link #timers()}, looked up on each request
     */
    public WheelTimerEndpoint(
            Supplier<Map<String, HashedWheelTimer>> timers,
            Supplier<List<WheelTimerEndpointContributor>> contributors) {
        this.timers = timers;
        this.contributors = contributors;
    }

    /**
     * {@code GET /actuator/wheeltimer}: {@code {"timers": {name: summary}}}, then each contributor's
     * section under its name.
     */
    @ReadOperation
    public TimersDescriptor timers() {
        Map<String, TimerDescriptor> summaries = new LinkedHashMap<>();
        timers.get().forEach((name, timer) -> summaries.put(name, TimerDescriptor.of(timer)));
        Map<String, Object> sections = new LinkedHashMap<>();
        for (WheelTimerEndpointContributor contributor : contributors.get()) {
            String name = contributor.name();
            if ("timers".equals(name) || sections.containsKey(name)) {
                throw new IllegalStateException("Two sections of the wheeltimer endpoint are named '" + name + "'; "
                        + contributor + " must name its section otherwise");
            }
            sections.put(name, contributor.describe());
        }
        return new TimersDescriptor(summaries, sections);
    }

    /** {@code GET /actuator/wheeltimer/{name}}: the summary plus {@code upcoming}; 404 if unknown. */
    @ReadOperation
    public WebEndpointResponse<Object> timer(@Selector String name) {
        return answer(name, WheelTimerEndpoint::detail);
    }

    /** {@code POST /actuator/wheeltimer/{name}}: stops that timer; a second call reports 0 unprocessed. */
    @WriteOperation
    public WebEndpointResponse<Object> stop(@Selector String name) {
        return answer(name, timer -> {
            int unprocessed = timer.stop().size();
            return new StoppedDescriptor(name, timer.state().name(), unprocessed);
        });
    }

    private static TimerDetailDescriptor detail(HashedWheelTimer timer) {
        List<UpcomingTimeout> upcoming;
        String unavailable = null;
        try {
            upcoming = timer.upcoming(UPCOMING_LIMIT).stream()
                    .map(UpcomingTimeout::of)
                    .toList();
        } catch (IllegalStateException busy) {
            // A task holds the worker: the summary (tickLag above all) is what helps now.
            upcoming = List.of();
            unavailable = busy.getMessage();
        }
        return TimerDetailDescriptor.of(timer, upcoming, unavailable);
    }

    /** What {@code operation} answers for the timer named {@code name}, looked up now; 404 if there is none. */
    private WebEndpointResponse<Object> answer(String name, Function<HashedWheelTimer, Object> operation) {
        Map<String, HashedWheelTimer> all = timers.get();
        HashedWheelTimer timer = all.get(name);
        return timer == null ? notFound(name, all) : new WebEndpointResponse<>(operation.apply(timer));
    }

    private static WebEndpointResponse<Object> notFound(String name, Map<String, HashedWheelTimer> all) {
        ProblemDescriptor problem = new ProblemDescriptor(
                "about:blank",
                "Not Found",
                WebEndpointResponse.STATUS_NOT_FOUND,
                "No HashedWheelTimer bean is named '" + name + "'; the timers are " + all.keySet(),
                List.copyOf(all.keySet()));
        return new WebEndpointResponse<>(problem, WebEndpointResponse.STATUS_NOT_FOUND, PROBLEM_JSON);
    }

    /**
     * Every timer's summary by bean name, then the contributors' sections, each written as a field of
     * its own beside {@code timers}.
     */
    public record TimersDescriptor(
            Map<String, TimerDescriptor> timers,
            @JsonAnyGetter Map<String, Object> sections) implements OperationResponseBody {

        /** Only the timers, no further section. */
        public TimersDescriptor(Map<String, TimerDescriptor> timers) {
            this(timers, Map.of());
        }
    }

    /** One timer's settings and counts; durations as ISO-8601 strings. */
    public record TimerDescriptor(
            String state,
            String tickDuration,
            int ticksPerWheel,
            long maxPendingTimeouts,
            boolean hierarchical,
            long pending,
            long scheduled,
            long expired,
            long cancelled,
            long rejected,
            long failed,
            long ticks,
            String tickLag)
            implements OperationResponseBody {

        static TimerDescriptor of(HashedWheelTimer timer) {
            TimerStats stats = timer.stats();
            return new TimerDescriptor(
                    stats.state().name(),
                    timer.tickDuration().toString(),
                    timer.ticksPerWheel(),
                    timer.maxPendingTimeouts(),
                    timer.isHierarchical(),
                    stats.pending(),
                    stats.scheduled(),
                    stats.expired(),
                    stats.cancelled(),
                    stats.rejected(),
                    stats.failed(),
                    stats.ticks(),
                    stats.tickLag().toString());
        }
    }

    /**
     * One timer's summary fields, then its soonest pending timeouts; {@code upcomingUnavailable}
     * (only when a task holds the worker) says why the list is empty.
     */
    public record TimerDetailDescriptor(
            String state,
            String tickDuration,
            int ticksPerWheel,
            long maxPendingTimeouts,
            boolean hierarchical,
            long pending,
            long scheduled,
            long expired,
            long cancelled,
            long rejected,
            long failed,
            long ticks,
            String tickLag,
            List<UpcomingTimeout> upcoming,
            String upcomingUnavailable)
            implements OperationResponseBody {

        static TimerDetailDescriptor of(HashedWheelTimer timer, List<UpcomingTimeout> upcoming, String unavailable) {
            TimerDescriptor s = TimerDescriptor.of(timer);
            return new TimerDetailDescriptor(
                    s.state(),
                    s.tickDuration(),
                    s.ticksPerWheel(),
                    s.maxPendingTimeouts(),
                    s.hierarchical(),
                    s.pending(),
                    s.scheduled(),
                    s.expired(),
                    s.cancelled(),
                    s.rejected(),
                    s.failed(),
                    s.ticks(),
                    s.tickLag(),
                    upcoming,
                    unavailable);
        }
    }

    /** A pending timeout: its task's description and the time left (ISO-8601). */
    public record UpcomingTimeout(String task, String remaining) {

        static UpcomingTimeout of(TimeoutInfo info) {
            return new UpcomingTimeout(info.task(), info.remaining().toString());
        }
    }

    /** The answer to a stop. */
    public record StoppedDescriptor(String name, String state, int unprocessed) implements OperationResponseBody {}

    /** An RFC 9457 problem detail; {@code timers} lists the names that are known. */
    public record ProblemDescriptor(String type, String title, int status, String detail, List<String> timers)
            implements OperationResponseBody {}
}
