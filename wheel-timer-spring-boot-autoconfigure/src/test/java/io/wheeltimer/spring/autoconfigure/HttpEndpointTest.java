package io.wheeltimer.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timeout;
import io.wheeltimer.TimerStats;
import io.wheeltimer.spring.autoconfigure.ActuatorHttp.NamedTask;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The {@code wheeltimer} actuator endpoint over real HTTP, with the default (read-only) access:
 * the listing, one timer with its upcoming timeouts, 404 for an unknown name, and no stop.
 */
@SpringBootTest(
        classes = TwoTimersOverHttp.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "management.endpoints.web.exposure.include=wheeltimer,health,prometheus")
class HttpEndpointTest extends TwoTimersOverHttp {

    /** The fields of a timer's summary, in the order the endpoint writes them. */
    static final List<String> SUMMARY_FIELDS = List.of(
            "state",
            "tickDuration",
            "ticksPerWheel",
            "maxPendingTimeouts",
            "hierarchical",
            "pending",
            "scheduled",
            "expired",
            "cancelled",
            "rejected",
            "failed",
            "ticks",
            "tickLag");

    /**
     * Boot's default is {@code management.endpoint.health.show-details=never}: a new application's
     * health shows the overall status only, and no path to the timer's component.
     */
    @Test
    void withBootsDefaultsHealthShowsNoTimerDetails() {
        HttpResponse<String> health = http.get("/actuator/health");
        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        Map<String, Object> root = JsonPath.parse(health.body()).read("$");
        assertThat(root).containsEntry("status", "UP").doesNotContainKeys("components", "details");

        // Components hidden (show-components follows show-details): not even the timer's own path.
        assertThat(http.get("/actuator/health/wheelTimer").statusCode()).isEqualTo(404);
    }

    @Test
    void listsEveryTimerByBeanNameWithTheSummaryFields() {
        DocumentContext json =
                getJson("/actuator/wheeltimer", 200, type -> assertThat(type).contains("json"));
        Map<String, Object> root = json.read("$");
        assertThat(root).containsOnlyKeys("timers");
        Map<String, Object> timers = json.read("$.timers");
        assertThat(timers).containsOnlyKeys("wheelTimer", "auditTimer");

        Map<String, Object> summary = json.read("$.timers.wheelTimer");
        assertThat(summary.keySet()).containsExactlyElementsOf(SUMMARY_FIELDS);
        assertThat((String) summary.get("state")).isIn("INIT", "STARTED");
        assertThat(summary.get("tickDuration")).isEqualTo("PT0.1S");
        assertThat(json.read("$.timers.wheelTimer.ticksPerWheel", Integer.class))
                .isEqualTo(512);
        assertThat(json.read("$.timers.wheelTimer.maxPendingTimeouts", Long.class))
                .isZero();
        assertThat(summary.get("hierarchical")).isEqualTo(wheelTimer.isHierarchical());
        assertThat(summary.get("tickLag")).isEqualTo("PT0S");
        for (String count : List.of("pending", "scheduled", "expired", "cancelled", "rejected", "failed", "ticks")) {
            assertThat(json.read("$.timers.wheelTimer." + count, Long.class))
                    .as(count)
                    .isNotNegative();
        }

        Map<String, Object> audit = json.read("$.timers.auditTimer");
        assertThat(audit.keySet()).containsExactlyElementsOf(SUMMARY_FIELDS);
        assertThat(audit.get("tickDuration")).isEqualTo("PT0.01S");
        assertThat(json.read("$.timers.auditTimer.ticksPerWheel", Integer.class))
                .isEqualTo(64);
        assertThat(json.read("$.timers.auditTimer.maxPendingTimeouts", Long.class))
                .isEqualTo(7);
        assertThat(audit.get("hierarchical")).isEqualTo(false);
    }

    @Test
    void summaryCountsFollowTheTimer() {
        TimerStats before = wheelTimer.stats();
        NamedTask soon = new NamedTask("soon");
        NamedTask late = new NamedTask("late");
        wheelTimer.newTimeout(soon, Duration.ofMillis(300));
        Timeout toCancel = wheelTimer.newTimeout(late, Duration.ofMinutes(5));
        Timeout stays = wheelTimer.newTimeout(late, Duration.ofMinutes(6));
        try {
            DocumentContext scheduled =
                    JsonPath.parse(http.get("/actuator/wheeltimer").body());
            assertThat(scheduled.read("$.timers.wheelTimer.state", String.class))
                    .isEqualTo("STARTED");
            assertThat(scheduled.read("$.timers.wheelTimer.scheduled", Long.class))
                    .isEqualTo(before.scheduled() + 3);
            assertThat(scheduled.read("$.timers.wheelTimer.pending", Long.class))
                    .isEqualTo(before.pending() + 3);

            ticker.advance(Duration.ofMillis(300));
            assertThat(soon.runs).hasValue(1);
            assertThat(toCancel.cancel()).isTrue();

            DocumentContext after =
                    JsonPath.parse(http.get("/actuator/wheeltimer").body());
            assertThat(after.read("$.timers.wheelTimer.expired", Long.class)).isEqualTo(before.expired() + 1);
            assertThat(after.read("$.timers.wheelTimer.cancelled", Long.class)).isEqualTo(before.cancelled() + 1);
            assertThat(after.read("$.timers.wheelTimer.pending", Long.class)).isEqualTo(before.pending() + 1);
            assertThat(after.read("$.timers.wheelTimer.ticks", Long.class)).isGreaterThanOrEqualTo(3);
            assertThat(after.read("$.timers.wheelTimer.tickLag", String.class)).isEqualTo("PT0S");
        } finally {
            stays.cancel();
            toCancel.cancel();
        }
    }

    @Test
    void oneTimerShowsItsSoonestTwentyTimeoutsSoonestFirst() {
        long pendingBefore = wheelTimer.pendingTimeouts();
        List<Integer> seconds =
                new ArrayList<>(IntStream.rangeClosed(30, 54).boxed().toList()); // 25 delays
        Collections.shuffle(seconds, new Random(42));
        List<Timeout> timeouts = new ArrayList<>();
        for (int s : seconds) {
            timeouts.add(wheelTimer.newTimeout(new NamedTask("task-" + s), Duration.ofSeconds(s)));
        }
        try {
            HttpResponse<String> response = http.get("/actuator/wheeltimer/wheelTimer");

            assertThat(response.statusCode()).isEqualTo(200);
            DocumentContext json = JsonPath.parse(response.body());
            Map<String, Object> detail = json.read("$");
            List<String> fields = new ArrayList<>(SUMMARY_FIELDS);
            fields.add("upcoming");
            assertThat(detail.keySet()).containsExactlyElementsOf(fields);
            assertThat(json.read("$.state", String.class)).isEqualTo("STARTED");
            assertThat(json.read("$.tickDuration", String.class)).isEqualTo("PT0.1S");
            assertThat(json.read("$.pending", Long.class)).isEqualTo(pendingBefore + 25);

            List<Map<String, Object>> upcoming = json.read("$.upcoming");
            assertThat(upcoming).hasSize(20);
            assertThat(upcoming).allSatisfy(entry -> assertThat(entry).containsOnlyKeys("task", "remaining"));
            // The ticker has not moved since they were scheduled: remaining = the delay, exactly.
            assertThat(upcoming)
                    .extracting(entry -> entry.get("task"))
                    .containsExactlyElementsOf(IntStream.rangeClosed(30, 49)
                            .mapToObj(s -> "task-" + s)
                            .toList());
            assertThat(upcoming)
                    .extracting(entry -> entry.get("remaining"))
                    .containsExactlyElementsOf(IntStream.rangeClosed(30, 49)
                            .mapToObj(s -> "PT" + s + "S")
                            .toList());

            ticker.advance(Duration.ofMillis(500));
            DocumentContext later =
                    JsonPath.parse(http.get("/actuator/wheeltimer/wheelTimer").body());
            assertThat(later.read("$.upcoming[0].task", String.class)).isEqualTo("task-30");
            assertThat(later.read("$.upcoming[0].remaining", String.class)).isEqualTo("PT29.5S");
        } finally {
            timeouts.forEach(Timeout::cancel);
        }
        DocumentContext cleared =
                JsonPath.parse(http.get("/actuator/wheeltimer/wheelTimer").body());
        assertThat(cleared.read("$.pending", Long.class)).isEqualTo(pendingBefore);
    }

    @Test
    void aUserDefinedTimerIsShownByItsBeanName() {
        Timeout timeout = auditTimer.newTimeout(new NamedTask("audit"), Duration.ofSeconds(2));
        try {
            DocumentContext json =
                    JsonPath.parse(http.get("/actuator/wheeltimer/auditTimer").body());
            assertThat(json.read("$.state", String.class)).isEqualTo("STARTED");
            assertThat(json.read("$.maxPendingTimeouts", Long.class)).isEqualTo(7);
            assertThat(json.<List<Object>>read("$.upcoming[*].task")).containsExactly("audit");
            assertThat(json.read("$.upcoming[0].remaining", String.class)).isEqualTo("PT2S");
        } finally {
            timeout.cancel();
        }
    }

    @Test
    void theActuatorLinksNameTheEndpoint() {
        HttpResponse<String> response = http.get("/actuator");

        assertThat(response.statusCode()).isEqualTo(200);
        DocumentContext json = JsonPath.parse(response.body());
        assertThat(json.read("$._links.wheeltimer.href", String.class)).endsWith("/actuator/wheeltimer");
        assertThat(json.read("$._links['wheeltimer-name'].href", String.class)).endsWith("/actuator/wheeltimer/{name}");
    }

    /** An unknown timer answers 404 with an RFC 9457 problem detail, not an empty body. */
    @Test
    void anUnknownTimerIsNotFoundWithAProblemDetailNamingTheKnownOnes() {
        DocumentContext json = getJson(
                "/actuator/wheeltimer/nope", 404, type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(json.read("$.status", Integer.class)).isEqualTo(404);
        assertThat(json.read("$.title", String.class)).isEqualTo("Not Found");
        assertThat(json.read("$.type", String.class)).isEqualTo("about:blank");
        assertThat(json.read("$.detail", String.class))
                .contains("'nope'")
                .contains("wheelTimer")
                .contains("auditTimer");
        assertThat(json.<List<Object>>read("$.timers")).containsExactlyInAnyOrder("wheelTimer", "auditTimer");
    }

    @Test
    void stopIsNotMappedWithTheDefaultReadOnlyAccess() {
        Timeout timeout = wheelTimer.newTimeout(new NamedTask("survivor"), Duration.ofMinutes(1));
        try {
            HttpResponse<String> response = http.post("/actuator/wheeltimer/wheelTimer");

            assertThat(response.statusCode()).as(response.body()).isIn(404, 405);
            assertThat(http.post("/actuator/wheeltimer/nope").statusCode()).isIn(404, 405);
            assertThat(wheelTimer.state()).isEqualTo(HashedWheelTimer.State.STARTED);
            assertThat(timeout.isCancelled()).isFalse();
            DocumentContext json =
                    JsonPath.parse(http.get("/actuator/wheeltimer/wheelTimer").body());
            assertThat(json.read("$.state", String.class)).isEqualTo("STARTED");
            assertThat(json.<List<Object>>read("$.upcoming[*].task")).contains("survivor");
        } finally {
            timeout.cancel();
        }
    }

    /** GETs {@code path}: asserts the status and the Content-Type, and parses the body. */
    private DocumentContext getJson(String path, int status, Consumer<String> contentType) {
        HttpResponse<String> response = http.get(path);

        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(contentType);
        return JsonPath.parse(response.body());
    }
}
