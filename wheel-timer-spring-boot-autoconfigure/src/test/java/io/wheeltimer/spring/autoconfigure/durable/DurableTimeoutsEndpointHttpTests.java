package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.wheeltimer.jdbc.DurableTimerTask;
import java.math.BigDecimal;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.TestPropertySource;

/**
 * What the {@code durabletimeouts} endpoint's tests share: an application with a task that succeeds
 * and one that always fails (given up at its first run), HTTP calls, and timeouts to look at; the
 * properties of every such test (each subclass adds its database, access and show-data).
 */
@TestPropertySource(
        properties = {
            DurableApps.WITH_DATA_SOURCE,
            "management.endpoints.web.exposure.include=durabletimeouts,wheeltimer",
            "wheel-timer.tick-duration=10ms",
            "wheel-timer.durable.poll-interval=100ms",
            "wheel-timer.durable.lookahead=3h",
            "wheel-timer.durable.lease=1s",
            "wheel-timer.durable.max-attempts=1",
            "wheel-timer.durable.instance-id=" + DurableTimeoutsEndpointHttpTests.INSTANCE
        })
@SpringBootTest(
        classes = DurableTimeoutsEndpointHttpTests.App.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
abstract class DurableTimeoutsEndpointHttpTests extends DurableHttpTests {

    static final String INSTANCE = "node-a";

    record PaymentDeadline(String customer, BigDecimal amount) {}

    static class Handlers {
        final AtomicInteger audits = new AtomicInteger();

        @DurableTimerTask("order-payment")
        public void cancelIfUnpaid(String orderId, PaymentDeadline deadline) {}

        @DurableTimerTask("audit")
        public void audit(String key, PaymentDeadline deadline) {
            audits.incrementAndGet();
            throw new IllegalStateException("audit store full");
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Handlers.class)
    static class App {}

    @Autowired
    JdbcClient jdbc;

    @Autowired
    Handlers handlers;

    @AfterEach
    void emptyTheTable() {
        jdbc.sql("DELETE FROM " + timer.tableName()).update();
    }

    /** Schedules {@code audit} for {@code key} now, and waits until its one run failed and it was given up. */
    void givenUp(String key, PaymentDeadline data) {
        timer.schedule("audit", key, Duration.ZERO, data);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> timer.findFailed("audit", key).isPresent());
    }

    DocumentContext json(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        return JsonPath.parse(response.body());
    }

    /** A new database on the shared PostgreSQL server, its tables created by the timer's scripts. */
    static void postgres(DynamicPropertyRegistry registry) {
        database(registry, Database.POSTGRESQL);
    }

    /** A new database of {@code database}, its tables created by the timer's scripts. */
    static void database(DynamicPropertyRegistry registry, Database database) {
        for (String property : database.newDatabase()) {
            int equals = property.indexOf('=');
            registry.add(property.substring(0, equals), () -> property.substring(equals + 1));
        }
    }

    static void assertIsoInstant(Object value) {
        assertThat(value).isInstanceOf(String.class);
        assertThat(Instant.parse((String) value)).isNotNull();
    }

    static List<String> keysOf(DocumentContext json, String path) {
        Map<String, Object> object = json.read(path);
        return List.copyOf(object.keySet());
    }
}
