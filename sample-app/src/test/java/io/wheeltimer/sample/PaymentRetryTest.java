package io.wheeltimer.sample;

import static io.wheeltimer.sample.Api.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A payment that timed out (504) may still have been charged by the provider, later: the order id is
 * the charge's idempotency key, so the client's retry takes that charge and is not charged again.
 */
@SampleWebTest(
        properties = {
            "orders.provider-latency=1s",
            "orders.payment-timeout=200ms",
            "spring.datasource.url=jdbc:h2:file:./target/test-db/retry-${random.uuid}"
        })
class PaymentRetryTest {

    @Autowired
    PaymentProvider provider;

    @Test
    void aRetryAfterA504IsChargedOnce(Api api) {
        String id = api.place("book");
        long before = provider.charges();

        assertProblem(api.pay(id), 504, "still awaiting payment");
        assertProblem(api.pay(id), 504, "still awaiting payment"); // the first charge is still under way
        // The provider finishes the charge it started, though the first payment gave up on it.
        await().atMost(Api.PATIENCE).until(() -> provider.charges() == before + 1);

        assertThat(api.pay(id).statusCode()).isEqualTo(200);
        assertThat(api.status(id)).isEqualTo("PAID");
        assertThat(provider.charges()).isEqualTo(before + 1);
    }
}
