package io.wheeltimer.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.wheeltimer.jdbc.DurableTimer;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The order flow over real HTTP, with a payment window of 1 s and a 10 ms tick: a paid order stays
 * paid (its durable deadline cancelled), an unpaid one cancels itself at its deadline with the data
 * scheduled with it, the endpoints and the durable meters show both, and bad input gets problem details.
 */
@SampleWebTest(
        properties = {
            "orders.payment-window=1s",
            "wheel-timer.tick-duration=10ms",
            "spring.datasource.url=jdbc:h2:file:./target/test-db/flow-${random.uuid}"
        })
@ExtendWith(OutputCaptureExtension.class)
class OrderFlowTest {

    private static final Duration WINDOW = Duration.ofSeconds(1);

    @Autowired
    DurableTimer deadlines;

    @Autowired
    MeterRegistry meters;

    private Api api;

    @BeforeEach
    void connect(Api api) {
        this.api = api;
    }

    @Test
    void unpaidOrderCancelsItselfAndAPaidOneStaysPaid(CapturedOutput output) throws Exception {
        double scheduledBefore = durable("scheduled");
        double firedBefore = durable("fired");
        double cancelledBefore = durable("cancelled");

        HttpResponse<String> placed = api.post("/orders", "{\"item\": \"book\"}");
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
        DocumentContext pending = JsonPath.parse(
                api.get("/actuator/durabletimeouts/order-payment").body());
        assertThat(pending.<List<String>>read("$.timeouts[*].key")).contains(unpaidId);
        assertThat(pending.<List<String>>read("$.timeouts[*].data")).containsOnly("******");
        assertThat(api.post("/actuator/durabletimeouts/order-payment/" + unpaidId, "")
                        .statusCode())
                .as("no writes as it comes")
                .isEqualTo(405);

        String paidId = JsonPath.read(api.post("/orders", "{\"item\": \"pen\"}").body(), "$.id");
        HttpResponse<String> paid = api.post("/orders/" + paidId + "/payment", "");
        assertThat(paid.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(paid.body(), "$.status")).isEqualTo("PAID");
        // Paying it cancelled its deadline.
        assertThat(deadlines.find("order-payment", paidId)).isEmpty();

        // While the unpaid one waits, the endpoint shows the task this instance handles and holds.
        DocumentContext endpoint =
                JsonPath.parse(api.get("/actuator/wheeltimer").body());
        assertThat(endpoint.<List<String>>read("$.durable.tasks")).containsExactly("order-payment");

        await().atMost(Api.PATIENCE)
                .untilAsserted(() -> assertThat(api.status(unpaidId)).isEqualTo("CANCELLED"));
        assertThat(deadlines.find("order-payment", unpaidId)).isEmpty();
        // Its cancellation got the data back: the item and when it was due.
        await().atMost(Api.PATIENCE)
                .untilAsserted(() -> assertThat(output.getOut())
                        .contains("Order " + unpaidId + " (book, due " + payBy + ") was not paid in time: cancelled"));
        Thread.sleep(WINDOW.toMillis()); // well past the paid order's window too
        assertThat(api.status(paidId)).isEqualTo("PAID");

        List<String> all = JsonPath.read(api.get("/orders").body(), "$.orders[*].id");
        assertThat(all).contains(unpaidId, paidId);

        // Two deadlines scheduled, one cancelled by the payment, one fired, once.
        assertThat(durable("scheduled")).isEqualTo(scheduledBefore + 2);
        assertThat(durable("cancelled")).isEqualTo(cancelledBefore + 1);
        await().atMost(Api.PATIENCE)
                .untilAsserted(() -> assertThat(durable("fired")).isEqualTo(firedBefore + 1));
        assertThat(meters.get("orders.cancelled")
                        .tag("by", "deadline")
                        .counter()
                        .count())
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    void unknownOrderIsANotFoundProblem() throws Exception {
        HttpResponse<String> response = api.get("/orders/no-such-order");
        Api.assertProblem(response, 404, "no-such-order");
        Api.assertProblem(api.post("/orders/no-such-order/payment", ""), 404, "no-such-order");
    }

    @Test
    void payingAnOrderThatIsNotPendingIsAConflictProblem() throws Exception {
        String id = JsonPath.read(api.post("/orders", "{\"item\": \"lamp\"}").body(), "$.id");
        assertThat(api.post("/orders/" + id + "/payment", "").statusCode()).isEqualTo(200);
        Api.assertProblem(api.post("/orders/" + id + "/payment", ""), 409, "PAID");

        String late = JsonPath.read(api.post("/orders", "{\"item\": \"chair\"}").body(), "$.id");
        await().atMost(Api.PATIENCE)
                .untilAsserted(() -> assertThat(api.status(late)).isEqualTo("CANCELLED"));
        Api.assertProblem(api.post("/orders/" + late + "/payment", ""), 409, "CANCELLED");
    }

    @Test
    void malformedOrMissingBodyIsABadRequestProblem() throws Exception {
        Api.assertProblem(api.post("/orders", "{\"item\": "), 400, null);
        Api.assertProblem(api.post("/orders", "{}"), 400, "item");
        Api.assertProblem(api.post("/orders", "{\"item\": \"  \"}"), 400, "item");
    }

    @Test
    void healthShowsTheTimerUp() throws Exception {
        DocumentContext health = JsonPath.parse(api.get("/actuator/health").body());
        assertThat(health.<String>read("$.components.wheelTimer.status")).isEqualTo("UP");
        assertThat(health.<String>read("$.components.wheelTimer.details.wheelTimer.state"))
                .isIn("INIT", "STARTED");
        assertThat(health.<String>read("$.components.wheelTimerDurable.status")).isEqualTo("UP");
    }

    /** A counter of the payment deadlines: {@code wheel.timer.durable.<name>}, task {@code order-payment}. */
    private double durable(String name) {
        Counter counter = meters.find("wheel.timer.durable." + name)
                .tag("task", "order-payment")
                .counter();
        return counter == null ? 0 : counter.count();
    }
}
