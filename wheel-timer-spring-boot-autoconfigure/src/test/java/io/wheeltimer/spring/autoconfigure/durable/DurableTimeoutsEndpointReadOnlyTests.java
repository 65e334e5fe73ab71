package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code durabletimeouts} endpoint as it comes: read-only (POST and DELETE are not mapped, so
 * Boot answers 405 and nothing changes) and its data hidden, as the {@code env} endpoint hides its
 * values; a subclass per database.
 */
abstract class DurableTimeoutsEndpointReadOnlyTests extends DurableTimeoutsEndpointHttpTests {

    static final PaymentDeadline BOB = new PaymentDeadline("bob", new BigDecimal("99.00"));

    @Test
    void writesAreNotMappedAndChangeNothing() {
        timer.schedule("order-payment", "k1", Duration.ofHours(1), BOB);
        givenUp("a-1", BOB);
        int runs = handlers.audits.get();

        assertThat(http.post("/actuator/durabletimeouts/audit/a-1").statusCode())
                .isEqualTo(405);
        assertThat(http.delete("/actuator/durabletimeouts/audit/a-1").statusCode())
                .isEqualTo(405);
        assertThat(http.delete("/actuator/durabletimeouts/order-payment/k1").statusCode())
                .isEqualTo(405);

        assertThat(timer.findFailed("audit", "a-1")).as("still given up").isPresent();
        assertThat(handlers.audits).as("not run again").hasValue(runs);
        assertThat(timer.find("order-payment", "k1")).as("still pending").isPresent();
    }

    @Test
    void theDataIsHiddenAndWhetherThereIsAnyIsNot() {
        timer.schedule("order-payment", "k1", Duration.ofHours(1), BOB);
        timer.schedule("order-payment", "k2", Duration.ofHours(2));
        givenUp("a-1", BOB);

        DocumentContext pending = json(http.get("/actuator/durabletimeouts/order-payment"), 200);
        assertThat(pending.read("$.timeouts[*].key", List.class)).containsExactly("k1", "k2");
        assertThat(pending.read("$.timeouts[0].data", String.class)).isEqualTo(DurableTimeoutsEndpoint.HIDDEN);
        assertThat(pending.read("$.timeouts[1].data", String.class)).isNull();
        assertThat(json(http.get("/actuator/durabletimeouts/order-payment/k1"), 200)
                        .read("$.data", String.class))
                .isEqualTo("******");
        DocumentContext failed = json(http.get("/actuator/durabletimeouts/audit?state=failed"), 200);
        assertThat(failed.read("$.timeouts[0].data", String.class)).isEqualTo("******");
        assertThat(failed.read("$.timeouts[0].lastError", String.class)).contains("audit store full");
        assertThat(json(http.get("/actuator/durabletimeouts/audit/a-1"), 200).jsonString())
                .doesNotContain("bob")
                .doesNotContain("99.00");
        assertThat(json(http.get("/actuator/durabletimeouts"), 200).read("$.held", Integer.class))
                .isEqualTo(2);
    }
}
