package io.wheeltimer.sample;

import static io.wheeltimer.sample.Api.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import io.wheeltimer.jdbc.DurableTimer;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * A payment counts from when it arrives: one that arrives before {@code payBy} is accepted even when
 * the provider answers after it, and its deadline does not cancel the order under it. One that fails
 * after {@code payBy} leaves the order cancelled, not pending for ever; one that never finishes (its
 * instance died holding the order) leaves it to the deadline, which cancels it once the claim lapses.
 */
class PaymentArrivalTest {

    /** Pays {@code order}, and asserts that the payment was sent before its payBy and {@code answered} after it. */
    static HttpResponse<String> payAcrossPayBy(Api api, Api.Placed order, String answered) {
        Instant sent = Instant.now();
        HttpResponse<String> answer = api.pay(order.id());
        assertThat(sent).as("the payment was sent before payBy").isBefore(order.payBy());
        assertThat(Instant.now()).as(answered + " after payBy").isAfter(order.payBy());
        return answer;
    }

    @Nested
    @SampleWebTest(
            properties = {
                "orders.payment-window=2s",
                "orders.provider-latency=3s",
                "orders.payment-timeout=10s",
                "wheel-timer.tick-duration=10ms",
                "spring.datasource.url=jdbc:h2:file:./target/test-db/arrival-${random.uuid}"
            })
    class WhenTheProviderAnswersAfterPayBy {

        @Autowired
        PaymentProvider provider;

        @Autowired
        DurableTimer deadlines;

        @Test
        void aPaymentThatArrivedInTimeIsPaidAndStaysPaid(Api api) {
            Api.Placed order = api.placeDue("book");

            HttpResponse<String> paid = payAcrossPayBy(api, order, "the provider answered");

            assertThat(paid.statusCode()).as(paid.body()).isEqualTo(200);
            assertThat(JsonPath.<String>read(paid.body(), "$.status")).isEqualTo("PAID");
            // Its deadline passed meanwhile and found the order held by this payment: it did not cancel it,
            // but waited for the claim to lapse, and the payment cancelled that wait.
            assertThat(api.status(order.id())).isEqualTo("PAID");
            assertThat(provider.charges()).isEqualTo(1);
            assertThat(deadlines.find("order-payment", order.id())).isEmpty();
        }
    }

    @Nested
    @SampleWebTest(
            properties = {
                "orders.payment-window=2s",
                "orders.provider-latency=6s",
                "orders.payment-timeout=3s",
                "wheel-timer.tick-duration=10ms",
                "spring.datasource.url=jdbc:h2:file:./target/test-db/arrival-late-${random.uuid}"
            })
    class WhenThePaymentTimesOutAfterPayBy {

        @Autowired
        DurableTimer deadlines;

        @Test
        void theOrderIsCancelledAtOnceNotLeftPending(Api api) {
            Api.Placed order = api.placeDue("book");

            HttpResponse<String> timedOut = payAcrossPayBy(api, order, "it timed out");

            assertProblem(timedOut, 504, "still awaiting payment");

            // The claim would lapse only 13 s after the payment arrived: the failed payment itself cancels the
            // overdue order, and its deadline, which was waiting for the claim.
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> api.status(order.id()).equals("CANCELLED"));
            assertThat(deadlines.find("order-payment", order.id())).isEmpty();
            assertProblem(api.pay(order.id()), 409, "CANCELLED");
        }
    }

    @Nested
    @SampleWebTest(
            properties = {
                "orders.payment-window=1s",
                "orders.payment-timeout=200ms", // a claim lapses 10.2 s after its payment arrived
                "wheel-timer.tick-duration=10ms",
                "spring.datasource.url=jdbc:h2:file:./target/test-db/arrival-dead-${random.uuid}"
            })
    class WhenThePaymentThatHoldsTheOrderNeverFinishes {

        @Autowired
        DurableTimer deadlines;

        @Autowired
        JdbcClient jdbc;

        @Test
        void theDeadlineWaitsForTheClaimToLapseAndThenCancelsTheOrder(Api api) {
            Api.Placed order = api.placeDue("book");
            // A payment arrived in time and claimed the order, on an instance that then died: nothing will
            // mark the order paid or let go of it.
            Instant arrived = Instant.now().truncatedTo(ChronoUnit.MILLIS);
            assertThat(arrived).isBefore(order.payBy());
            jdbc.sql("UPDATE orders SET payment_arrived_at = ? WHERE id = ?")
                    .params(arrived.atOffset(ZoneOffset.UTC), order.id())
                    .update();
            Instant lapses = arrived.plus(Duration.ofMillis(200)).plus(OrdersProperties.CLAIM_MARGIN);

            // The deadline fires, leaves the claimed order alone and waits for the claim to lapse.
            await().atMost(Api.PATIENCE)
                    .untilAsserted(() -> assertThat(deadlines.find("order-payment", order.id()))
                            .hasValueSatisfying(
                                    deadline -> assertThat(deadline.deadline()).isEqualTo(lapses.plusMillis(1))));
            assertThat(Instant.now()).isAfter(order.payBy()).isBefore(lapses);
            assertThat(api.status(order.id())).isEqualTo("PENDING_PAYMENT");

            // Once the claim has lapsed, the deadline cancels the order: not before.
            await().atMost(Api.PATIENCE).until(() -> api.status(order.id()).equals("CANCELLED"));
            Instant cancelledAt = jdbc.sql("SELECT cancelled_at FROM orders WHERE id = ?")
                    .param(order.id())
                    .query((rs, row) -> rs.getObject(1, OffsetDateTime.class).toInstant())
                    .single();
            assertThat(cancelledAt).isAfterOrEqualTo(lapses);
            assertThat(deadlines.find("order-payment", order.id())).isEmpty();
        }
    }
}
