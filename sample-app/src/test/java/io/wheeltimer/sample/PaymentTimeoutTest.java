package io.wheeltimer.sample;

import static io.wheeltimer.sample.Api.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.wheeltimer.jdbc.DurableTimer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A payment provider slower than {@code orders.payment-timeout} answers 504 as a problem detail and
 * leaves the order awaiting payment, with its durable deadline still pending, where it was. The limit is
 * the wheel's {@code @WheelTimeLimit} on {@link PaymentProvider#charge}, which counts what it cut short.
 */
@SampleWebTest(
        properties = {
            "orders.provider-latency=3s",
            "orders.payment-timeout=200ms",
            "spring.datasource.url=jdbc:h2:file:./target/test-db/timeout-${random.uuid}"
        })
class PaymentTimeoutTest {

    @Autowired
    MeterRegistry meters;

    @Autowired
    DurableTimer deadlines;

    @Test
    void aSlowProviderIsA504AndTheOrderStaysPendingPayment(Api api) {
        Api.Placed order = api.placeDue("book");

        assertProblem(api.pay(order.id()), 504, "still awaiting payment");

        assertThat(api.status(order.id())).isEqualTo("PENDING_PAYMENT");
        assertThat(deadlines.find("order-payment", order.id()))
                .hasValueSatisfying(deadline -> assertThat(deadline.deadline()).isEqualTo(order.payBy()));
        assertThat(meters.get("wheel.timer.time.limit.exceeded")
                        .tag("task", "io.wheeltimer.sample.PaymentProvider.charge(String)")
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }
}
