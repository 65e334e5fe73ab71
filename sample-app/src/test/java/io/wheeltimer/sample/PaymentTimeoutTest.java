package io.wheeltimer.sample;

import static io.wheeltimer.sample.Api.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * A payment provider slower than {@code orders.payment-timeout}
 * answers 504 as a problem detail and leaves the order awaiting payment. The limit is the wheel's
 * {@code @WheelTimeLimit} on {@link PaymentProvider#charge}, which counts what it cut short.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "orders.provider-latency=3s",
            "orders.payment-timeout=200ms",
            "spring.datasource.url=jdbc:h2:file:./target/test-db/timeout-${random.uuid}"
        })
class PaymentTimeoutTest {

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry meters;

    @Test
    void aSlowProviderIsA504AndTheOrderStaysPendingPayment() {
        Api api = new Api(port);
        String id = api.place("book");

        assertProblem(api.pay(id), 504, "still awaiting payment");

        assertThat(api.status(id)).isEqualTo("PENDING_PAYMENT");
        assertThat(meters.get("wheel.timer.time.limit.exceeded")
                        .tag("task", "io.wheeltimer.sample.PaymentProvider.charge(String)")
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }
}
