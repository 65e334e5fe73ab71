package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import io.wheeltimer.spring.autoconfigure.ActuatorHttp;
import io.wheeltimer.testsupport.postgres.EmbeddedPostgresServer;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * With Boot's default pool settings (a poll waits up to 30 s for a connection) and the durable
 * defaults (1 s polls, a 30 s lease), the health sees a database outage within seconds: DOWN once the
 * last successful poll is three poll intervals old, whether the polls fail or hang, and UP again
 * after, with {@code lastPoll} the time of the last success.
 */
@SpringBootTest(
        classes = DurableActuatorHttpTests.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            DurableApps.WITH_DATA_SOURCE,
            "management.endpoints.web.exposure.include=health",
            "management.endpoint.health.show-details=always",
            "wheel-timer.durable.initialize-schema=always",
            "wheel-timer.durable.instance-id=outage"
        })
@DirtiesContext
class DurableHealthOutageTest {

    /** Closed by its shutdown hook, after the context. */
    private static final EmbeddedPostgresServer server = EmbeddedPostgresServer.start();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        DurableApps.useServer(registry, server);
    }

    @LocalServerPort
    int port;

    @Autowired
    JdbcDurableTimer timer;

    @Test
    void theHealthIsDownWithinFiveSecondsOfAnOutageAndUpAgainAfter() {
        ActuatorHttp http = new ActuatorHttp(port);
        await().atMost(Duration.ofSeconds(10)).until(() -> status(http).equals("UP"));
        Instant lastBefore = Instant.parse(JsonPath.parse(health(http).body()).read("$.details.lastPoll"));

        server.stop();
        long stoppedAt = System.nanoTime();
        Duration toDown;
        try {
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> status(http).equals("DOWN"));
            toDown = Duration.ofNanos(System.nanoTime() - stoppedAt);
            assertThat(health(http).statusCode()).isEqualTo(503);
            Instant lastDuring =
                    Instant.parse(JsonPath.parse(health(http).body()).read("$.details.lastPoll"));
            assertThat(lastDuring)
                    .as("the last success, not a poll that failed")
                    .isBefore(Instant.now().minusSeconds(2));
            assertThat(lastDuring).isAfterOrEqualTo(lastBefore);
        } finally {
            server.startAgain();
        }
        long restartedAt = System.nanoTime();
        Instant restarted = Instant.now();
        await().atMost(Duration.ofSeconds(60)).until(() -> status(http).equals("UP"));
        Duration toUp = Duration.ofNanos(System.nanoTime() - restartedAt);
        assertThat(Instant.parse(JsonPath.parse(health(http).body()).read("$.details.lastPoll")))
                .isAfter(restarted);

        System.out.println("OUTAGE: DOWN " + toDown.toMillis() + " ms after the server stopped, UP " + toUp.toMillis()
                + " ms after it started again");
        assertThat(toDown).isLessThanOrEqualTo(Duration.ofSeconds(5));
    }

    private static HttpResponse<String> health(ActuatorHttp http) {
        return http.get("/actuator/health/wheelTimerDurable");
    }

    private static String status(ActuatorHttp http) {
        return JsonPath.parse(health(http).body()).read("$.status", String.class);
    }
}
