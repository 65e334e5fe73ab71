package io.wheeltimer.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The order flow over real HTTP, with a payment window of 1 s and a 10 ms tick: a paid order stays
 * paid, an unpaid one cancels itself, the timer's endpoint and meters show both, and bad input gets
 * problem details.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "orders.payment-window=1s",
            "wheel-timer.tick-duration=10ms",
            "spring.datasource.url=jdbc:h2:file:./target/test-db/flow-${random.uuid}"
        })
class OrderFlowTest {

    private static final Duration WINDOW = Duration.ofSeconds(1);
    private static final Duration PATIENCE = Duration.ofSeconds(30); // a noisy CI machine

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void unpaidOrderCancelsItselfAndAPaidOneStaysPaid() throws Exception {
        double scheduledBefore = meter("wheel_timer_scheduled_timeouts_total");
        double expiredBefore = meter("wheel_timer_expired_timeouts_total");
        double cancelledBefore = meter("wheel_timer_cancelled_timeouts_total");

        HttpResponse<String> placed = post("/orders", "{\"item\": \"book\"}");
        assertThat(placed.statusCode()).isEqualTo(201);
        DocumentContext unpaid = JsonPath.parse(placed.body());
        String unpaidId = unpaid.read("$.id");
        assertThat(placed.headers().firstValue("Location")).hasValue("/orders/" + unpaidId);
        assertThat(unpaid.<String>read("$.item")).isEqualTo("book");
        assertThat(unpaid.<String>read("$.status")).isEqualTo("PENDING_PAYMENT");
        Instant createdAt = Instant.parse(unpaid.read("$.createdAt"));
        assertThat(Instant.parse(unpaid.<String>read("$.payBy"))).isEqualTo(createdAt.plus(WINDOW));

        String paidId = JsonPath.read(post("/orders", "{\"item\": \"pen\"}").body(), "$.id");
        HttpResponse<String> paid = post("/orders/" + paidId + "/payment", "");
        assertThat(paid.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(paid.body(), "$.status")).isEqualTo("PAID");

        // While the unpaid one waits, the endpoint lists its deadline by method, not by argument.
        DocumentContext timer =
                JsonPath.parse(get("/actuator/wheeltimer/wheelTimer").body());
        List<String> tasks = timer.read("$.upcoming[*].task");
        assertThat(tasks).contains("io.wheeltimer.sample.PaymentDeadlines.cancelIfUnpaid(String)");
        assertThat(String.join(",", tasks)).doesNotContain(unpaidId);

        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(status(unpaidId)).isEqualTo("CANCELLED"));
        Thread.sleep(WINDOW.toMillis()); // well past the paid order's window too
        assertThat(status(paidId)).isEqualTo("PAID");

        List<String> all = JsonPath.read(get("/orders").body(), "$.orders[*].id");
        assertThat(all).contains(unpaidId, paidId);

        // Two payment deadlines and the payment call's time limit (@WheelTimeLimit), which the
        // provider's answer cancelled, as the payment cancelled the paid order's deadline.
        assertThat(meter("wheel_timer_scheduled_timeouts_total")).isEqualTo(scheduledBefore + 3);
        await().atMost(PATIENCE)
                .untilAsserted(() ->
                        assertThat(meter("wheel_timer_expired_timeouts_total")).isEqualTo(expiredBefore + 1));
        assertThat(meter("wheel_timer_cancelled_timeouts_total")).isEqualTo(cancelledBefore + 2);
        DocumentContext after = JsonPath.parse(get("/actuator/wheeltimer").body());
        assertThat(after.<Integer>read("$.timers.wheelTimer.expired")).isGreaterThanOrEqualTo(1);
        assertThat(after.<Integer>read("$.timers.wheelTimer.cancelled")).isGreaterThanOrEqualTo(1);
    }

    @Test
    void unknownOrderIsANotFoundProblem() throws Exception {
        HttpResponse<String> response = get("/orders/no-such-order");
        assertProblem(response, 404, "no-such-order");
        assertProblem(post("/orders/no-such-order/payment", ""), 404, "no-such-order");
    }

    @Test
    void payingAnOrderThatIsNotPendingIsAConflictProblem() throws Exception {
        String id = JsonPath.read(post("/orders", "{\"item\": \"lamp\"}").body(), "$.id");
        assertThat(post("/orders/" + id + "/payment", "").statusCode()).isEqualTo(200);
        assertProblem(post("/orders/" + id + "/payment", ""), 409, "PAID");

        String late = JsonPath.read(post("/orders", "{\"item\": \"chair\"}").body(), "$.id");
        await().atMost(PATIENCE).untilAsserted(() -> assertThat(status(late)).isEqualTo("CANCELLED"));
        assertProblem(post("/orders/" + late + "/payment", ""), 409, "CANCELLED");
    }

    @Test
    void malformedOrMissingBodyIsABadRequestProblem() throws Exception {
        assertProblem(post("/orders", "{\"item\": "), 400, null);
        assertProblem(post("/orders", "{}"), 400, "item");
        assertProblem(post("/orders", "{\"item\": \"  \"}"), 400, "item");
    }

    @Test
    void healthShowsTheTimerUp() throws Exception {
        DocumentContext health = JsonPath.parse(get("/actuator/health").body());
        assertThat(health.<String>read("$.components.wheelTimer.status")).isEqualTo("UP");
        assertThat(health.<String>read("$.components.wheelTimer.details.wheelTimer.state"))
                .isIn("INIT", "STARTED");
    }

    private static void assertProblem(HttpResponse<String> response, int status, String detailPart) {
        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        DocumentContext problem = JsonPath.parse(response.body());
        assertThat(problem.<Integer>read("$.status")).isEqualTo(status);
        assertThat(problem.<String>read("$.title")).isNotBlank();
        if (detailPart != null) {
            assertThat(problem.<String>read("$.detail")).contains(detailPart);
        }
    }

    private String status(String id) throws IOException, InterruptedException {
        return JsonPath.read(get("/orders/" + id).body(), "$.status");
    }

    /** One sample of a meter from /actuator/prometheus (tag name="wheelTimer"). */
    private double meter(String name) throws IOException, InterruptedException {
        String scrape = get("/actuator/prometheus").body();
        Matcher m = Pattern.compile("^" + name + "\\{name=\"wheelTimer\"} (\\S+)$", Pattern.MULTILINE)
                .matcher(scrape);
        assertThat(m.find()).as("%s in %s", name, scrape).isTrue();
        return Double.parseDouble(m.group(1));
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(uri(path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }
}
