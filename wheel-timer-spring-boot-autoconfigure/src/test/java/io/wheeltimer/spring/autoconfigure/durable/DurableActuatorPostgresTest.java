package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.wheeltimer.testsupport.postgres.EmbeddedPostgresServer;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * The actuator views of durable timeouts on PostgreSQL, with a server of this class's own: stopped,
 * the health goes DOWN once the polls no longer keep up and the endpoint still answers; started again, the
 * health is UP again without a restart of the application.
 */
@TestPropertySource(
        properties = {
            "wheel-timer.durable.initialize-schema=always",
            // Fail fast while the server is down, rather than wait 30 s for a connection.
            "spring.datasource.hikari.connection-timeout=500",
            "spring.datasource.hikari.validation-timeout=250"
        })
class DurableActuatorPostgresTest extends DurableActuatorHttpTests {

    /** Closed by its shutdown hook, after the context: closing it first would leave the context polling a dead server. */
    private static final EmbeddedPostgresServer server = EmbeddedPostgresServer.start();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        DurableApps.useServer(registry, server);
    }

    @Test
    void theHealthGoesDownWhileTheDatabaseIsStoppedAndUpAgainAfter() {
        timer.schedule("order-payment", "survives", Duration.ofHours(1));
        assertThat(health().read("$.status", String.class)).isEqualTo("UP");

        server.stop();
        try {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                HttpResponse<String> down = http.get("/actuator/health/wheelTimerDurable");
                assertThat(down.statusCode()).isEqualTo(503);
                assertThat(JsonPath.parse(down.body()).read("$.status", String.class))
                        .isEqualTo("DOWN");
            });
            // DOWN comes from either signal: three failed polls in a row, or no successful poll for too long;
            // the failed polls come first, and the time without a poll follows.
            assertThat(timer.failedPollsInARow()).isPositive();
            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(() -> assertThat(timer.isPollingOnTime()).isFalse());
            DocumentContext details = health();
            assertThat(details.read("$.details.instance", String.class)).isEqualTo(INSTANCE);
            assertThat(details.read("$.details.held", Integer.class))
                    .as("nothing lost")
                    .isEqualTo(1);

            HttpResponse<String> endpoint = http.get("/actuator/wheeltimer");
            assertThat(endpoint.statusCode()).isEqualTo(200);
            Map<String, Object> durable = JsonPath.parse(endpoint.body()).read("$.durable");
            assertThat(durable).as("failed is not readable now").doesNotContainKey("failed");
            assertThat(durable.get("held")).isEqualTo(1);
        } finally {
            server.startAgain();
        }

        Instant restarted = Instant.now();
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            DocumentContext up = health();
            assertThat(up.read("$.status", String.class)).isEqualTo("UP");
            assertThat(Instant.parse(up.read("$.details.lastPoll", String.class)))
                    .isAfterOrEqualTo(restarted.minusSeconds(1));
        });
        assertThat(timer.find("order-payment", "survives")).isPresent();
        timer.cancel("order-payment", "survives");
    }

    private DocumentContext health() {
        return http.json("/actuator/health/wheelTimerDurable");
    }
}
