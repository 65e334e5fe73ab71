package io.wheeltimer.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Twenty payments of one order at once: the provider charges it once, one answer is 200, the rest 409. */
@SampleWebTest(
        properties = {
            "orders.provider-latency=500ms",
            "spring.datasource.url=jdbc:h2:file:./target/test-db/concurrent-${random.uuid}"
        })
class ConcurrentPaymentTest {

    @Autowired
    PaymentProvider provider;

    @Test
    void twentyParallelPaymentsMakeOneChargeOne200AndNineteen409s(Api api) {
        String id = api.place("book");
        long chargesBefore = provider.charges();

        List<Integer> statuses = api.payAtOnce(id, 20);

        assertThat(provider.charges() - chargesBefore).isEqualTo(1);
        assertThat(statuses.stream().filter(s -> s == 200)).hasSize(1);
        assertThat(statuses.stream().filter(s -> s == 409)).hasSize(19);
        assertThat(api.status(id)).isEqualTo("PAID");
    }
}
