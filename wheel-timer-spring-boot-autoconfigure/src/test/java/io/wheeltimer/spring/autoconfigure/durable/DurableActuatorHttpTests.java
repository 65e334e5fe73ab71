package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.wheeltimer.jdbc.DurableTimerTask;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The {@code durable} object of {@code GET /actuator/wheeltimer} and the {@code wheelTimerDurable}
 * health over real HTTP, in a whole Boot application; a subclass per database.
 */
@SpringBootTest(
        classes = DurableActuatorHttpTests.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            DurableApps.WITH_DATA_SOURCE,
            "management.endpoints.web.exposure.include=wheeltimer,health",
            "management.endpoint.health.show-details=always",
            "wheel-timer.tick-duration=10ms",
            "wheel-timer.durable.poll-interval=100ms",
            "wheel-timer.durable.lookahead=3h",
            "wheel-timer.durable.lease=1s",
            "wheel-timer.durable.max-attempts=1",
            "wheel-timer.durable.instance-id=" + DurableActuatorHttpTests.INSTANCE
        })
@DirtiesContext
abstract class DurableActuatorHttpTests extends DurableHttpTests {

    static final String INSTANCE = "node-a";

    static class Handlers {
        @DurableTimerTask("order-payment")
        public void cancelIfUnpaid(String orderId) {}

        @DurableTimerTask("audit")
        public void audit(String key) {
            throw new IllegalStateException("audit store full");
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Handlers.class)
    static class App {}

    @Test
    void theEndpointShowsTheDurableObject() {
        timer.schedule("order-payment", "held-1", Duration.ofHours(1));
        timer.schedule("order-payment", "held-2", Duration.ofHours(2));
        timer.schedule("audit", "given-up", Duration.ZERO);
        await().atMost(Duration.ofSeconds(30)).until(() -> timer.failed() == 1);

        HttpResponse<String> response = http.get("/actuator/wheeltimer");
        assertThat(response.statusCode()).isEqualTo(200);
        DocumentContext json = JsonPath.parse(response.body());
        Map<String, Object> root = json.read("$");
        assertThat(root).containsOnlyKeys("timers", "durable");
        Map<String, Object> timers = json.read("$.timers");
        assertThat(timers).containsKey("wheelTimer");
        Map<String, Object> durable = json.read("$.durable");
        assertThat(durable.keySet()).containsExactly("instance", "held", "failed", "tasks");
        assertThat(durable.get("instance")).isEqualTo(INSTANCE);
        assertThat(durable.get("held")).isEqualTo(2);
        assertThat(durable.get("failed")).isEqualTo(1);
        List<String> tasks = json.read("$.durable.tasks");
        assertThat(tasks).containsExactly("audit", "order-payment");

        timer.cancel("order-payment", "held-1");
        timer.cancel("order-payment", "held-2");
    }

    @Test
    void theWheelsUpcomingListNamesADurableTimeoutByItsTaskAndKey() {
        timer.schedule("order-payment", "order-42", Duration.ofHours(1));
        try {
            HttpResponse<String> response = http.get("/actuator/wheeltimer/wheelTimer");
            assertThat(response.statusCode()).isEqualTo(200);
            List<String> upcoming = JsonPath.parse(response.body()).read("$.upcoming[*].task");
            assertThat(upcoming).contains("durable timeout of task \"order-payment\" for key \"order-42\"");
        } finally {
            timer.cancel("order-payment", "order-42");
        }
    }

    @Test
    void theHealthIsUpWithInstanceHeldAndLastPoll() {
        Instant before = timer.lastSuccessfulPoll().orElseThrow();
        HttpResponse<String> response = http.get("/actuator/health/wheelTimerDurable");
        assertThat(response.statusCode()).isEqualTo(200);
        DocumentContext json = JsonPath.parse(response.body());
        assertThat(json.read("$.status", String.class)).isEqualTo("UP");
        Map<String, Object> details = json.read("$.details");
        assertThat(details).containsOnlyKeys("instance", "held", "lastPoll", "clockOffset");
        assertThat(Duration.parse((String) details.get("clockOffset")).abs()).isLessThan(Duration.ofSeconds(1));
        assertThat(details.get("instance")).isEqualTo(INSTANCE);
        assertThat(Instant.parse((String) details.get("lastPoll"))).isAfterOrEqualTo(before);
    }
}
