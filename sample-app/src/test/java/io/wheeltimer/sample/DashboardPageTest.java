package io.wheeltimer.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * The sample serves the wheel-timer dashboard at {@code /wheel-timer}: its wheel, and a placed order's
 * payment deadline among the pending durable timeouts, read-only.
 */
@SampleWebTest(properties = {"spring.datasource.url=jdbc:h2:file:./target/test-db/dashboard-${random.uuid}"})
class DashboardPageTest {

    @Test
    void theDashboardShowsTheWheelAndThePaymentDeadlines(Api api) {
        String order = api.place("a book");

        HttpResponse<String> page = api.get("/wheel-timer");

        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("text/html"));
        assertThat(page.body())
                .contains("data-testid=\"wheel\" data-name=\"wheelTimer\"")
                .contains("data-testid=\"durable-task\" data-task=\"" + OrderService.PAYMENT_DEADLINE + "\"")
                .doesNotContain("data-testid=\"cancel\"");
        HttpResponse<String> found = api.get("/wheel-timer?task=" + OrderService.PAYMENT_DEADLINE + "&key=" + order);
        assertThat(found.body()).contains("data-key=\"" + order + "\"").contains(">pending<");
    }
}
