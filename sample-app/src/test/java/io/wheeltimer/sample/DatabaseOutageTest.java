package io.wheeltimer.sample;

import static io.wheeltimer.sample.Api.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import com.zaxxer.hikari.SQLExceptionOverride;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.function.Supplier;
import org.h2.api.ErrorCode;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The database goes away: the orders live in an H2 server reached over TCP, and the test stops that
 * server (connections drop, new ones are refused, as when a database server is stopped) and later
 * starts it again on the same port. Meanwhile every request that needs the database fails fast with
 * 503 and {@code Retry-After}, health says DOWN, and a deadline that fell in the outage cancels its
 * order once the database is back (its durable timeout's run is retried every
 * {@code wheel-timer.durable.retry-delay}).
 */
@SampleWebTest(
        properties = {
            "orders.payment-window=10s",
            "wheel-timer.durable.retry-delay=500ms",
            "wheel-timer.tick-duration=10ms",
            "spring.datasource.hikari.exception-override-class-name="
                    + "io.wheeltimer.sample.DatabaseOutageTest$H2DroppedConnections"
        })
class DatabaseOutageTest {

    /** Well under Hikari's default of 30 s, which requests used to wait; generous for a noisy machine. */
    private static final Duration FAST = Duration.ofSeconds(10);

    private static final DatabaseServer database = new DatabaseServer();

    @DynamicPropertySource
    static void database(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", database::url);
    }

    @AfterAll
    static void stopDatabase() {
        database.stop();
    }

    @Autowired
    MeterRegistry meters;

    @Test
    void requestsFailFastWith503AndHealthIsDownUntilTheDatabaseIsBack(Api api) {
        Api.Placed order = api.placeDue("before the outage");
        double cancelledBefore = cancelled();
        assertThat(api.status(order.id())).isEqualTo("PENDING_PAYMENT");

        database.stop();

        assertUnavailable(() -> api.post("/orders", "{\"item\": \"during the outage\"}"));
        assertUnavailable(() -> api.get("/orders/" + order.id()));
        assertUnavailable(() -> api.pay(order.id()));
        assertUnavailable(() -> api.get("/orders"));
        long start = System.nanoTime();
        HttpResponse<String> health = api.get("/actuator/health");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAST);
        assertThat(health.statusCode()).isEqualTo(503);
        DocumentContext down = JsonPath.parse(health.body());
        assertThat(down.<String>read("$.status")).isEqualTo("DOWN");
        assertThat(down.<String>read("$.components.db.status")).isEqualTo("DOWN");

        // The order's deadline passes while the database is away: cancelling it fails then.
        await().atMost(Api.PATIENCE)
                .until(() -> Instant.now().isAfter(order.payBy().plusMillis(200)));
        assertThat(cancelled()).isEqualTo(cancelledBefore);
        database.start();

        await().atMost(Api.PATIENCE).until(() -> api.get("/actuator/health").statusCode() == 200);
        // Late, and once: the deadline's run failed with the database and is retried until it commits.
        await().atMost(Api.PATIENCE).until(() -> api.status(order.id()).equals("CANCELLED"));
        assertThat(cancelled()).isEqualTo(cancelledBefore + 1);
        assertThat(api.post("/orders", "{\"item\": \"after the outage\"}").statusCode())
                .isEqualTo(201);
    }

    private static void assertUnavailable(Supplier<HttpResponse<String>> request) {
        long start = System.nanoTime();
        HttpResponse<String> response = request.get();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAST);
        assertProblem(response, 503, "database");
        assertThat(response.headers().firstValue("Retry-After")).hasValue("2");
    }

    private double cancelled() {
        return meters.find("orders.cancelled").counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    /**
     * H2's client reports a dropped server connection as error 90067 or 90121, which Hikari does not
     * know as a dead connection (PostgreSQL's SQLSTATE 08006 or 57P01 it does): evict it, so the pool
     * does not keep handing out dead connections once the server is back.
     */
    public static final class H2DroppedConnections implements SQLExceptionOverride {
        @java.lang.Override // the simple name is SQLExceptionOverride's enum here
        public Override adjudicate(SQLException e) {
            return e.getErrorCode() == ErrorCode.CONNECTION_BROKEN_1
                            || e.getErrorCode() == ErrorCode.DATABASE_CALLED_AT_SHUTDOWN
                    ? Override.MUST_EVICT
                    : Override.CONTINUE_EVICT;
        }
    }

    /** An H2 server on a fixed loopback port, to stop and start again; its files under target/. */
    private static final class DatabaseServer {
        private final Path directory = Path.of("target", "test-db", "outage-" + UUID.randomUUID());
        private Server server;
        private int port;

        DatabaseServer() {
            start();
            port = server.getPort();
        }

        String url() {
            return "jdbc:h2:tcp://127.0.0.1:" + port + "/orders";
        }

        void start() {
            try {
                server = Server.createTcpServer(
                                "-tcpPort",
                                Integer.toString(port),
                                "-ifNotExists",
                                "-baseDir",
                                directory.toAbsolutePath().toString())
                        .start();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        void stop() {
            server.stop();
        }
    }
}
