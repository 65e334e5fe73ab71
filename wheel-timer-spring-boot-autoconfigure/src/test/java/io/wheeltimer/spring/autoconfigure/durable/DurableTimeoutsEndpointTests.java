package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.DocumentContext;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * The {@code durabletimeouts} endpoint over HTTP with writes allowed and data shown
 * ({@code access=unrestricted}, {@code show-data=always}): every path, its JSON, and its errors; a
 * subclass per database.
 */
@TestPropertySource(properties = {DurableTimeoutsEndpointTests.ACCESS, DurableTimeoutsEndpointTests.SHOW_DATA})
abstract class DurableTimeoutsEndpointTests extends DurableTimeoutsEndpointHttpTests {

    static final String ACCESS = "management.endpoint.durabletimeouts.access=unrestricted";
    static final String SHOW_DATA = "management.endpoint.durabletimeouts.show-data=always";

    static final PaymentDeadline ALICE = new PaymentDeadline("alice", new BigDecimal("12.50"));
    static final String ALICE_JSON = "{\"customer\":\"alice\",\"amount\":12.50}";

    @Test
    void theRootNamesThisInstanceWhatItHoldsItsTasksAndTheTasksNoHandlerHere() {
        timer.schedule("order-payment", "held", Duration.ofHours(1), ALICE);
        timer.schedule("order-payment", "far", Duration.ofDays(30));
        jdbc.sql("UPDATE " + timer.tableName() + " SET task = 'removed-task' WHERE timeout_key = 'far'")
                .update();

        DocumentContext json = json(http.get("/actuator/durabletimeouts"), 200);
        assertThat(keysOf(json, "$")).containsExactly("instance", "held", "tasks", "unhandled");
        assertThat(json.read("$.instance", String.class)).isEqualTo(INSTANCE);
        assertThat(json.read("$.held", Integer.class)).isEqualTo(1);
        assertThat(json.read("$.tasks", List.class)).containsExactly("audit", "order-payment");
        assertThat(json.read("$.unhandled", List.class)).containsExactly("removed-task");
    }

    @Test
    void aTasksPendingTimeoutsAreListedSoonestFirstWithTheirData() {
        timer.schedule("order-payment", "k2", Duration.ofHours(2));
        timer.schedule("order-payment", "k1", Duration.ofHours(1), ALICE);
        timer.schedule("order-payment", "k3", Duration.ofHours(3), "as given");

        DocumentContext json = json(http.get("/actuator/durabletimeouts/order-payment"), 200);
        assertThat(keysOf(json, "$")).containsExactly("task", "state", "timeouts");
        assertThat(json.read("$.task", String.class)).isEqualTo("order-payment");
        assertThat(json.read("$.state", String.class)).isEqualTo("pending");
        assertThat(json.read("$.timeouts[*].key", List.class)).containsExactly("k1", "k2", "k3");
        assertThat(keysOf(json, "$.timeouts[0]")).containsExactly("key", "deadline", "attempt", "data");
        assertThat(json.read("$.timeouts[0].deadline", String.class))
                .isEqualTo(timer.find("order-payment", "k1")
                        .orElseThrow()
                        .deadline()
                        .toString());
        assertThat(json.read("$.timeouts[0].attempt", Integer.class)).isEqualTo(1);
        assertThat(json.read("$.timeouts[0].data", String.class)).isEqualTo(ALICE_JSON);
        assertThat(json.read("$.timeouts[1].data", String.class)).as("none").isNull();
        assertThat(json.read("$.timeouts[2].data", String.class)).isEqualTo("as given");

        DocumentContext limited = json(http.get("/actuator/durabletimeouts/order-payment?state=pending&limit=2"), 200);
        assertThat(limited.read("$.timeouts[*].key", List.class)).containsExactly("k1", "k2");
        assertThat(json(http.get("/actuator/durabletimeouts/nobody"), 200).read("$.timeouts", List.class))
                .isEmpty();
    }

    @Test
    void aTasksGivenUpTimeoutsAreListedWithWhenAndWhy() {
        givenUp("a-1", ALICE);

        DocumentContext json = json(http.get("/actuator/durabletimeouts/audit?state=failed"), 200);
        System.out.println("GET /actuator/durabletimeouts/audit?state=failed -> " + json.jsonString());
        assertThat(json.read("$.state", String.class)).isEqualTo("failed");
        assertThat(keysOf(json, "$.timeouts[0]"))
                .containsExactly("key", "deadline", "attempt", "data", "failedAt", "lastError");
        Map<String, Object> failed = json.read("$.timeouts[0]");
        assertThat(failed)
                .containsEntry("key", "a-1")
                .containsEntry("attempt", 1)
                .containsEntry("data", ALICE_JSON);
        assertIsoInstant(failed.get("deadline"));
        assertIsoInstant(failed.get("failedAt"));
        assertThat((String) failed.get("lastError")).contains("IllegalStateException", "audit store full");
        assertThat(json(http.get("/actuator/durabletimeouts/audit"), 200).read("$.timeouts", List.class))
                .as("not pending")
                .isEmpty();
    }

    @Test
    void aBadStateOrLimitIsABadRequestSayingWhatIsAllowed() {
        assertProblem("/actuator/durabletimeouts/audit?state=done", 400, "state must be 'pending' or 'failed'");
        assertProblem("/actuator/durabletimeouts/audit?limit=0", 400, "limit must be a whole number from 1 to 1000");
        assertProblem("/actuator/durabletimeouts/audit?limit=1001", 400, "from 1 to 1000, not '1001'");
        assertProblem("/actuator/durabletimeouts/audit?limit=many", 400, "not 'many'");
        assertThat(http.get("/actuator/durabletimeouts/audit?state=failed&limit=1000")
                        .statusCode())
                .isEqualTo(200);
    }

    @Test
    void oneTimeoutIsShownPendingOrGivenUpWithItsState() {
        timer.schedule("order-payment", "k1", Duration.ofHours(1), ALICE);
        givenUp("a-1", null);

        DocumentContext pending = json(http.get("/actuator/durabletimeouts/order-payment/k1"), 200);
        assertThat(keysOf(pending, "$")).containsExactly("task", "key", "state", "deadline", "attempt", "data");
        assertThat(pending.read("$.state", String.class)).isEqualTo("pending");
        assertThat(pending.read("$.data", String.class)).isEqualTo(ALICE_JSON);

        DocumentContext failed = json(http.get("/actuator/durabletimeouts/audit/a-1"), 200);
        assertThat(keysOf(failed, "$"))
                .containsExactly("task", "key", "state", "deadline", "attempt", "data", "failedAt", "lastError");
        assertThat(failed.read("$.state", String.class)).isEqualTo("failed");
        assertThat(failed.read("$.data", String.class)).isNull();

        assertProblem(
                "/actuator/durabletimeouts/order-payment/none", 404, "no durable timeout of task 'order-payment'");
    }

    @Test
    void postRetriesAGivenUpTimeoutAtOnceFromTheFirstAttempt() {
        givenUp("a-2", ALICE);
        int runs = handlers.audits.get();

        DocumentContext retried = json(http.post("/actuator/durabletimeouts/audit/a-2"), 200);
        assertThat(retried.read("$.state", String.class)).isEqualTo("pending");
        assertThat(retried.read("$.attempt", Integer.class)).isEqualTo(1);
        assertThat(retried.read("$.data", String.class)).isEqualTo(ALICE_JSON);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(handlers.audits).hasValue(runs + 1);
            assertThat(timer.findFailed("audit", "a-2")).as("given up again").isPresent();
        });

        timer.schedule("order-payment", "k1", Duration.ofHours(1));
        assertThat(http.post("/actuator/durabletimeouts/order-payment/k1").statusCode())
                .as("a pending one is not retried")
                .isEqualTo(404);
        assertProblem(http.post("/actuator/durabletimeouts/audit/none"), 404, "no given-up durable timeout");
    }

    @Test
    void deleteCancelsAPendingTimeoutOrDiscardsAGivenUpOne() {
        timer.schedule("order-payment", "k1", Duration.ofHours(1));
        givenUp("a-3", ALICE);

        assertThat(json(http.delete("/actuator/durabletimeouts/order-payment/k1"), 200)
                        .read("$", Map.class))
                .isEqualTo(Map.of("removed", true));
        assertThat(timer.find("order-payment", "k1")).isEmpty();
        assertThat(json(http.delete("/actuator/durabletimeouts/audit/a-3"), 200).read("$.removed", Boolean.class))
                .isTrue();
        assertThat(timer.findFailed("audit", "a-3")).isEmpty();
        assertProblem(http.delete("/actuator/durabletimeouts/audit/a-3"), 404, "no durable timeout of task 'audit'");
    }

    private void assertProblem(String path, int status, String detail) {
        assertProblem(http.get(path), status, detail);
    }

    private void assertProblem(java.net.http.HttpResponse<String> response, int status, String detail) {
        DocumentContext problem = json(response, status);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(problem.read("$.status", Integer.class)).isEqualTo(status);
        assertThat(problem.read("$.detail", String.class)).contains(detail);
    }
}
