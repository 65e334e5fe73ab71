package io.wheeltimer.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.wheeltimer.jdbc.DurableTimer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The order flow over real HTTP, with a payment window of 1 s and a 10 ms tick: a paid order stays
 * paid (its durable deadline cancelled), an unpaid one cancels itself at its deadline with the data
 * scheduled with it, the endpoints and the durable meters show both, and bad input gets problem details.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "orders.payment-window=1s",
            "wheel-timer.tick-duration=10ms",
            "spring.datasource.url=jdbc:h2:file:./target/test-db/flow-${random.uuid}"
        })
@ExtendWith(OutputCaptureExtension.class)
class OrderFlowTest {

    private static final Duration WINDOW = Duration.ofSeconds(1);
    private static final Duration PATIENCE = Duration.ofSeconds(30); // a noisy CI machine

    @LocalServerPort
    int port;

    @Autowired
    DurableTimer deadlines;

    @Autowired
    MeterRegistry meters;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void unpaidOrderCancelsItselfAndAPaidOneStaysPaid(CapturedOutput output) throws Exception {
        double scheduledBefore = durable("scheduled");
        double firedBefore = durable("fired");
        double cancelledBefore = durable("cancelled");

        HttpResponse<String> placed = post("/orders", "{\"item\": \"book\"}");
        assertThat(placed.statusCode()).isEqualTo(201);
        DocumentContext unpaid = JsonPath.parse(placed.body());
        String unpaidId = unpaid.read("$.id");
        assertThat(placed.headers().firstValue("Location")).hasValue("/orders/" + unpaidId);
        assertThat(unpaid.<String>read("$.item")).isEqualTo("book");
        assertThat(unpaid.<String>read("$.status")).isEqualTo("PENDING_PAYMENT");
        Instant createdAt = Instant.parse(unpaid.read("$.createdAt"));
        Instant payBy = Instant.parse(unpaid.<String>read("$.payBy"));
        assertThat(payBy).isEqualTo(createdAt.plus(WINDOW));
        // Its deadline is a durable timeout, in the orders' database, due at payBy (in milliseconds).
        assertThat(deadlines.find("order-payment", unpaidId))
                .hasValueSatisfying(deadline -> assertThat(deadline.deadline()).isEqualTo(payBy));

        // It carries the item and payBy, stored as JSON, which its cancellation gets back as a PaymentDeadline.
        String data = deadlines.find("order-payment", unpaidId).orElseThrow().data();
        assertThat(JsonPath.<String>read(data, "$.item")).isEqualTo("book");
        assertThat(Instant.parse(JsonPath.<String>read(data, "$.payBy"))).isEqualTo(payBy);
        // The durabletimeouts endpoint lists it, read-only, its data hidden.
        DocumentContext pending =
                JsonPath.parse(get("/actuator/durabletimeouts/order-payment").body());
        assertThat(pending.<List<String>>read("$.timeouts[*].key")).contains(unpaidId);
        assertThat(pending.<List<String>>read("$.timeouts[*].data")).containsOnly("******");
        assertThat(post("/actuator/durabletimeouts/order-payment/" + unpaidId, "")
                        .statusCode())
                .as("no writes as it comes")
                .isEqualTo(405);

        String paidId = JsonPath.read(post("/orders", "{\"item\": \"pen\"}").body(), "$.id");
        HttpResponse<String> paid = post("/orders/" + paidId + "/payment", "");
        assertThat(paid.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(paid.body(), "$.status")).isEqualTo("PAID");
        // Paying it cancelled its deadline.
        assertThat(deadlines.find("order-payment", paidId)).isEmpty();

        // While the unpaid one waits, the endpoint shows the task this instance handles and holds.
        DocumentContext endpoint = JsonPath.parse(get("/actuator/wheeltimer").body());
        assertThat(endpoint.<List<String>>read("$.durable.tasks")).containsExactly("order-payment");

        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(status(unpaidId)).isEqualTo("CANCELLED"));
        assertThat(deadlines.find("order-payment", unpaidId)).isEmpty();
        // Its cancellation got the data back: the item and when it was due.
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(output.getOut())
                        .contains("Order " + unpaidId + " (book, due " + payBy + ") was not paid in time: cancelled"));
        Thread.sleep(WINDOW.toMillis()); // well past the paid order's window too
        assertThat(status(paidId)).isEqualTo("PAID");

        List<String> all = JsonPath.read(get("/orders").body(), "$.orders[*].id");
        assertThat(all).contains(unpaidId, paidId);

        // Two deadlines scheduled, one cancelled by the payment, one fired, once.
        assertThat(durable("scheduled")).isEqualTo(scheduledBefore + 2);
        assertThat(durable("cancelled")).isEqualTo(cancelledBefore + 1);
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(durable("fired")).isEqualTo(firedBefore + 1));
        assertThat(meters.get("orders.cancelled")
                        .tag("by", "deadline")
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(1);
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
        assertThat(health.<String>read("$.components.wheelTimerDurable.status")).isEqualTo("UP");
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

    /** A counter of the payment deadlines: {@code wheel.timer.durable.<name>}, task {@code order-payment}. */
    private double durable(String name) {
        Counter counter = meters.find("wheel.timer.durable." + name)
                .tag("task", "order-payment")
                .counter();
        return counter == null ? 0 : counter.count();
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
