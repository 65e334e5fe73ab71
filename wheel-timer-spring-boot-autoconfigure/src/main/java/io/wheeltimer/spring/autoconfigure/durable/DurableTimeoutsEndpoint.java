package io.wheeltimer.spring.autoconfigure.durable;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.FailedTimeout;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.dao.DataAccessException;
import org.springframework.util.MimeType;

/**
 * {@code /actuator/durabletimeouts}: the durable timeouts in the table, pending and given up, and
 * (only with {@code management.endpoint.durabletimeouts.access=unrestricted}) retrying or removing
 * one. Instants are ISO-8601 strings. The data of a timeout is shown per
 * {@code management.endpoint.durabletimeouts.show-data}, as the {@code env} endpoint shows values:
 * hidden, it reads {@value #HIDDEN}. Errors are RFC 9457 problem details: 400 for a bad
 * {@code state}, {@code limit}, task or key, 404 when there is no such timeout, 503 when the database
 * cannot be reached.
 */
@Endpoint(id = "durabletimeouts", defaultAccess = Access.READ_ONLY)
public class DurableTimeoutsEndpoint {

    /** What hidden data reads, as the {@code env} endpoint's hidden values do. */
    public static final String HIDDEN = "******";

    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 1000;
    static final String PENDING = "pending";
    static final String FAILED = "failed";

    private static final MimeType PROBLEM_JSON = MimeType.valueOf("application/problem+json");

    private final JdbcDurableTimer timer;
    private final Show showData;
    private final Set<String> roles;

    /**
     * @param timer the durable timer whose table is shown
     * @param showData when to show the timeouts' data
     * @param roles the roles that may see it when {@code showData} is {@code WHEN_AUTHORIZED}; empty:
     *     any authenticated user
     */
    public DurableTimeoutsEndpoint(JdbcDurableTimer timer, Show showData, Collection<String> roles) {
        this.timer = Objects.requireNonNull(timer, "timer must not be null");
        this.showData = Objects.requireNonNull(showData, "showData must not be null");
        this.roles = Set.copyOf(roles);
    }

    /**
     * {@code GET}: this instance, what it holds, the tasks it handles, and the tasks in the table it
     * does not (a query: left out while the database cannot be reached, as the rest is this instance's
     * own).
     */
    @ReadOperation
    public OverviewDescriptor overview() {
        List<String> unhandled;
        try {
            unhandled = timer.unhandledTasks().keySet().stream().sorted().toList();
        } catch (DataAccessException e) {
            unhandled = null;
        }
        return new OverviewDescriptor(
                timer.instanceId(),
                timer.held(),
                timer.tasks().stream().sorted().toList(),
                unhandled);
    }

    /**
     * {@code GET /{task}?state=pending|failed&limit=N}: the pending timeouts of a task, soonest first,
     * or those given up, latest first; {@code pending} and 50 by default, {@code limit} 1 to 1000.
     */
    @ReadOperation
    public WebEndpointResponse<Object> timeouts(
            @Selector String task, @Nullable String state, @Nullable String limit, SecurityContext security) {
        String which = state == null || state.isBlank() ? PENDING : state.trim();
        if (!which.equals(PENDING) && !which.equals(FAILED)) {
            return problem(
                    400, "Bad Request", "state must be '" + PENDING + "' or '" + FAILED + "', not '" + state + "'");
        }
        int most;
        try {
            most = limit == null || limit.isBlank() ? DEFAULT_LIMIT : Integer.parseInt(limit.trim());
        } catch (NumberFormatException e) {
            most = -1;
        }
        if (most < 1 || most > MAX_LIMIT) {
            return problem(
                    400,
                    "Bad Request",
                    "limit must be a whole number from 1 to " + MAX_LIMIT + ", not '" + limit + "'");
        }
        boolean shown = showData.isShown(security, roles);
        int count = most;
        return answer(() -> new TimeoutsDescriptor(
                task,
                which,
                which.equals(PENDING)
                        ? timer.pending(task, count).stream()
                                .map(t -> entry(t, shown))
                                .toList()
                        : timer.failed(task, count).stream()
                                .map(f -> entry(f, shown))
                                .toList()));
    }

    /** {@code GET /{task}/{key}}: that timeout, pending or given up, with its {@code state}; 404 when there is none. */
    @ReadOperation
    public WebEndpointResponse<Object> timeout(@Selector String task, @Selector String key, SecurityContext security) {
        boolean shown = showData.isShown(security, roles);
        return answer(
                () -> {
                    Optional<DurableTimeout> pending = timer.find(task, key);
                    if (pending.isPresent()) {
                        return TimeoutDescriptor.pending(pending.get(), shown);
                    }
                    return timer.findFailed(task, key)
                            .map(failed -> TimeoutDescriptor.failed(failed, shown))
                            .orElse(null);
                },
                () -> "There is no durable timeout of task '" + task + "' for key '" + key + "', pending or given up");
    }

    /**
     * {@code POST /{task}/{key}}: a given-up timeout runs again at once, attempts from 1; 404 when none
     * is given up. It takes no body (so no security context either, whose parameter would make Boot
     * ask for a JSON body): its data is shown only with {@code show-data=always}.
     */
    @WriteOperation
    public WebEndpointResponse<Object> retry(@Selector String task, @Selector String key) {
        boolean shown = showData.isShown(false);
        return answer(
                () -> {
                    Optional<FailedTimeout> failed = timer.findFailed(task, key);
                    if (failed.isEmpty() || !timer.retry(task, key)) {
                        return null;
                    }
                    DurableTimeout was = failed.get().timeout();
                    DurableTimeout retried = new DurableTimeout(was.task(), was.key(), was.deadline(), was.data(), 1);
                    return TimeoutDescriptor.pending(retried, shown);
                },
                () -> "There is no given-up durable timeout of task '" + task + "' for key '" + key + "' to retry");
    }

    /** {@code DELETE /{task}/{key}}: cancels a pending timeout or discards a given-up one; 404 when there is none. */
    @DeleteOperation
    public WebEndpointResponse<Object> remove(@Selector String task, @Selector String key) {
        return answer(
                () -> timer.cancel(task, key) || timer.discard(task, key) ? new RemovedDescriptor(true) : null,
                () -> "There is no durable timeout of task '" + task + "' for key '" + key + "', pending or given up");
    }

    private static TimeoutDescriptor entry(DurableTimeout timeout, boolean shown) {
        return new TimeoutDescriptor(
                null,
                timeout.key(),
                null,
                timeout.deadline().toString(),
                timeout.attempt(),
                data(timeout, shown),
                null,
                null);
    }

    private static TimeoutDescriptor entry(FailedTimeout failed, boolean shown) {
        TimeoutDescriptor entry = entry(failed.timeout(), shown);
        return new TimeoutDescriptor(
                null,
                entry.key(),
                null,
                entry.deadline(),
                entry.attempt(),
                entry.data(),
                failed.failedAt().toString(),
                failed.lastError());
    }

    private static String data(DurableTimeout timeout, boolean shown) {
        return timeout.data() == null || shown ? timeout.data() : HIDDEN;
    }

    private static WebEndpointResponse<Object> answer(Supplier<Object> body) {
        return answer(body, () -> "Not found");
    }

    /** 200 with the body; 404 with {@code notFound} when it is null; 400 or 503 when the timer refuses or cannot. */
    private static WebEndpointResponse<Object> answer(Supplier<Object> body, Supplier<String> notFound) {
        Object answer;
        try {
            answer = body.get();
        } catch (IllegalArgumentException e) {
            return problem(400, "Bad Request", e.getMessage());
        } catch (DataAccessException e) {
            return problem(
                    503,
                    "Service Unavailable",
                    "The database of the durable timeouts cannot be reached: "
                            + e.getMostSpecificCause().getMessage());
        }
        return answer != null ? new WebEndpointResponse<>(answer) : problem(404, "Not Found", notFound.get());
    }

    private static WebEndpointResponse<Object> problem(int status, String title, String detail) {
        return new WebEndpointResponse<>(
                new ProblemDescriptor("about:blank", title, status, detail), status, PROBLEM_JSON);
    }

    /** {@code GET}'s answer. */
    public record OverviewDescriptor(String instance, int held, List<String> tasks, List<String> unhandled)
            implements OperationResponseBody {}

    /** The timeouts of a task in one state. */
    public record TimeoutsDescriptor(String task, String state, List<TimeoutDescriptor> timeouts)
            implements OperationResponseBody {}

    /**
     * A timeout: {@code task} and {@code state} only when it is shown alone; {@code failedAt} and
     * {@code lastError} only when it was given up; {@code data} is null when none was stored.
     */
    public record TimeoutDescriptor(
            @JsonInclude(JsonInclude.Include.NON_NULL) String task,
            String key,
            @JsonInclude(JsonInclude.Include.NON_NULL) String state,
            String deadline,
            int attempt,
            @JsonInclude(JsonInclude.Include.ALWAYS) String data,
            @JsonInclude(JsonInclude.Include.NON_NULL) String failedAt,
            @JsonInclude(JsonInclude.Include.NON_NULL) String lastError)
            implements OperationResponseBody {

        static TimeoutDescriptor pending(DurableTimeout timeout, boolean shown) {
            TimeoutDescriptor entry = entry(timeout, shown);
            return new TimeoutDescriptor(
                    timeout.task(), entry.key, PENDING, entry.deadline, entry.attempt, entry.data, null, null);
        }

        static TimeoutDescriptor failed(FailedTimeout failed, boolean shown) {
            TimeoutDescriptor entry = entry(failed, shown);
            return new TimeoutDescriptor(
                    failed.timeout().task(),
                    entry.key,
                    FAILED,
                    entry.deadline,
                    entry.attempt,
                    entry.data,
                    entry.failedAt,
                    entry.lastError);
        }
    }

    /** The answer to a {@code DELETE}. */
    public record RemovedDescriptor(boolean removed) implements OperationResponseBody {}

    /** An RFC 9457 problem detail. */
    public record ProblemDescriptor(String type, String title, int status, String detail)
            implements OperationResponseBody {}
}
