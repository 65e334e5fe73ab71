package io.wheeltimer.sample;

import static io.wheeltimer.sample.Api.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import io.wheeltimer.HashedWheelTimer;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Placing an order and arming its deadline succeed or fail together: a refused deadline neither
 * answers a bare 500 nor leaves the order PENDING_PAYMENT for ever.
 */
class TimerRefusalTest {

    @Nested
    @SpringBootTest(
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = {
                "orders.payment-window=3s",
                "wheel-timer.max-pending-timeouts=1",
                "spring.datasource.url=jdbc:h2:file:./target/test-db/refusal-${random.uuid}"
            })
    class WhenThePendingLimitIsReached {

        @LocalServerPort
        int port;

        @Test
        void theSecondOrderIsA503WithRetryAfterAndIsNotStored() {
            Api api = new Api(port);
            api.place("first");

            HttpResponse<String> refused = api.post("/orders", "{\"item\": \"second\"}");

            assertProblem(refused, 503, "not placed");
            assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
            List<String> items = JsonPath.read(api.get("/orders").body(), "$.orders[*].item");
            assertThat(items).containsExactly("first");
        }
    }

    @Nested
    @SpringBootTest(
            webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
            properties = {
                "orders.payment-window=1s",
                "orders.recovery-interval=500ms",
                "wheel-timer.tick-duration=10ms",
                "spring.datasource.url=jdbc:h2:file:./target/test-db/stopped-${random.uuid}"
            })
    class WhenTheTimerIsStopped {

        @LocalServerPort
        int port;

        @Autowired
        HashedWheelTimer timer;

        @Test
        void newOrdersAre503sAndOverdueOnesCannotBePaidAndTheSweepCancelsThem() throws Exception {
            Api api = new Api(port);
            String pending = api.place("before the stop");
            timer.stop();

            HttpResponse<String> refused = api.post("/orders", "{\"item\": \"after the stop\"}");
            assertProblem(refused, 503, "not placed");
            assertThat(refused.headers().firstValue("Retry-After")).isPresent();
            List<String> items = JsonPath.read(api.get("/orders").body(), "$.orders[*].item");
            assertThat(items).containsExactly("before the stop");

            // Its deadline was dropped with the timer; past payBy, payment is refused all the same.
            String payBy = JsonPath.read(api.get("/orders/" + pending).body(), "$.payBy");
            await().atMost(Api.PATIENCE).until(() -> java.time.Instant.now().isAfter(java.time.Instant.parse(payBy)));
            HttpResponse<String> late = api.pay(pending);
            if (late.statusCode() == 409 && !late.body().contains("payment window closed")) {
                // the sweep got there first: then it must say CANCELLED
                assertProblem(late, 409, "CANCELLED");
            } else {
                assertProblem(late, 409, "payment window closed");
            }
            assertThat(api.status(pending)).isNotEqualTo("PAID");
            await().atMost(Api.PATIENCE).until(() -> api.status(pending).equals("CANCELLED"));
        }
    }
}
