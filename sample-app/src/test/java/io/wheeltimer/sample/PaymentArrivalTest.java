package io.wheeltimer.sample;

import static io.wheeltimer.sample.Api.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import java.net.http.HttpResponse;
import java.time.Instant;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * A payment counts from when it arrives: one that arrives before {@code payBy} is accepted even when
 * the provider answers after it, and its deadline does not cancel the order under it. One that fails
 * after {@code payBy} leaves the order cancelled, not pending for ever.
 */
class PaymentArrivalTest {

    @Nested
    @SpringBootTest(
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = {
                "orders.payment-window=2s",
                "orders.provider-latency=3s",
                "orders.payment-timeout=10s",
                "orders.recovery-interval=200ms",
                "wheel-timer.tick-duration=10ms",
                "spring.datasource.url=jdbc:h2:file:./target/test-db/arrival-${random.uuid}"
            })
    class WhenTheProviderAnswersAfterPayBy {

        @LocalServerPort
        int port;

        @Autowired
        PaymentProvider provider;

        @Test
        void aPaymentThatArrivedInTimeIsPaidAndStaysPaid() {
            Api api = new Api(port);
            String placed = api.post("/orders", "{\"item\": \"book\"}").body();
            String id = JsonPath.read(placed, "$.id");
            Instant payBy = Instant.parse(JsonPath.read(placed, "$.payBy"));

            Instant sent = Instant.now();
            HttpResponse<String> paid = api.pay(id);

            assertThat(sent).as("the payment was sent before payBy").isBefore(payBy);
            assertThat(Instant.now()).as("the provider answered after payBy").isAfter(payBy);
            assertThat(paid.statusCode()).as(paid.body()).isEqualTo(200);
            assertThat(JsonPath.<String>read(paid.body(), "$.status")).isEqualTo("PAID");
            // Its deadline and several sweeps have passed meanwhile: none of them cancelled it.
            assertThat(api.status(id)).isEqualTo("PAID");
            assertThat(provider.charges()).isEqualTo(1);
        }
    }

    @Nested
    @SpringBootTest(
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = {
                "orders.payment-window=2s",
                "orders.provider-latency=6s",
                "orders.payment-timeout=3s",
                "orders.recovery-interval=1h",
                "wheel-timer.tick-duration=10ms",
                "spring.datasource.url=jdbc:h2:file:./target/test-db/arrival-late-${random.uuid}"
            })
    class WhenThePaymentTimesOutAfterPayBy {

        @LocalServerPort
        int port;

        @Test
        void theOrderIsCancelledAtOnceNotLeftPending() {
            Api api = new Api(port);
            String placed = api.post("/orders", "{\"item\": \"book\"}").body();
            String id = JsonPath.read(placed, "$.id");
            Instant payBy = Instant.parse(JsonPath.read(placed, "$.payBy"));

            Instant sent = Instant.now();
            HttpResponse<String> timedOut = api.pay(id);

            assertThat(sent).as("the payment was sent before payBy").isBefore(payBy);
            assertThat(Instant.now()).as("it timed out after payBy").isAfter(payBy);
            assertProblem(timedOut, 504, "still awaiting payment");

            // No sweep within the hour: the failed payment itself cancels the overdue order.
            await().atMost(Api.PATIENCE).until(() -> api.status(id).equals("CANCELLED"));
            assertProblem(api.pay(id), 409, "CANCELLED");
        }
    }
}
