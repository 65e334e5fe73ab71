package io.wheeltimer.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import com.zaxxer.hikari.HikariDataSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.wheeltimer.jdbc.DurableTimer;
import io.wheeltimer.testsupport.postgres.EmbeddedPostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The order service against a real PostgreSQL server (a throwaway cluster from
 * {@link EmbeddedPostgresServer}, never H2 in a compatibility mode): durable deadlines survive a
 * restart, the deadlines of an instance that dies fire once on the other instance on the same
 * database, and 50 payments racing the deadline get answers that agree with the stored state.
 */
class PostgresTest {

    @RegisterExtension
    static final ServerPerClass<EmbeddedPostgresServer> server = new ServerPerClass<>(EmbeddedPostgresServer::start);

    private static EmbeddedPostgresServer postgres() {
        return server.get();
    }

    /** A fresh database for one test. */
    private static String database(String name) {
        return postgres().createDatabase(name);
    }

    private static ConfigurableApplicationContext app(String url, String... properties) {
        List<String> all = new ArrayList<>(List.of(
                "server.port=0",
                "spring.datasource.url=" + url,
                "spring.datasource.username=" + postgres().username(),
                "wheel-timer.tick-duration=10ms",
                "wheel-timer.shutdown.await-termination-period=0s",
                "orders.provider-latency=10ms",
                // A dead instance's deadlines are taken over within seconds, not the default 30 s.
                "wheel-timer.durable.poll-interval=200ms",
                "wheel-timer.durable.lease=3s"));
        all.addAll(List.of(properties));
        Map<String, String> byKey = new java.util.LinkedHashMap<>(); // a later setting replaces an earlier one
        all.forEach(p -> byKey.put(p.substring(0, p.indexOf('=')), p));
        // As arguments, not builder properties: those are defaults, below application.yml.
        return new SpringApplicationBuilder(SampleApplication.class)
                .run(byKey.values().stream().map(p -> "--" + p).toArray(String[]::new));
    }

    private static double cancelledBy(ConfigurableApplicationContext app) {
        return app.getBean(MeterRegistry.class).find("orders.cancelled").counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    @Nested
    class DeadlinesSurviveARestart {

        @Test
        void overdueOrdersAreCancelledAtStartupAndTheOthersAtTheirDeadline() throws Exception {
            String url = database("restart");
            String overdue;
            String onTime;
            try (ConfigurableApplicationContext first = app(url, "orders.payment-window=60s")) {
                overdue = Api.of(first).place("overdue");
                onTime = Api.of(first).place("on time");
            }
            // While no instance runs, time passes: one deadline goes by, the other is 12 s away (room for
            // the second instance to start and cancel the overdue one first, on a loaded machine too). The
            // orders and their durable deadlines say so.
            Instant overdueBy = Instant.now().minusSeconds(1).truncatedTo(ChronoUnit.MILLIS);
            Instant onTimeBy = Instant.now().plusSeconds(12).truncatedTo(ChronoUnit.MILLIS);
            try (Connection c = DriverManager.getConnection(url, postgres().username(), "");
                    PreparedStatement order = c.prepareStatement("UPDATE orders SET pay_by = ? WHERE id = ?");
                    PreparedStatement deadline = c.prepareStatement(
                            "UPDATE wheel_timer_timeouts SET deadline = ?, due_at = ? WHERE task = 'order-payment'"
                                    + " AND timeout_key = ?")) {
                for (Map.Entry<String, Instant> e :
                        Map.of(overdue, overdueBy, onTime, onTimeBy).entrySet()) {
                    order.setTimestamp(1, Timestamp.from(e.getValue()));
                    order.setString(2, e.getKey());
                    assertThat(order.executeUpdate()).isEqualTo(1);
                    deadline.setLong(1, e.getValue().toEpochMilli());
                    deadline.setLong(2, e.getValue().toEpochMilli());
                    deadline.setString(3, e.getKey());
                    assertThat(deadline.executeUpdate())
                            .as("the stopped instance left the deadline in the table")
                            .isEqualTo(1);
                }
            }

            try (ConfigurableApplicationContext second = app(url, "orders.payment-window=60s")) {
                Api api = Api.of(second);
                await().atMost(Api.PATIENCE).until(() -> api.status(overdue).equals("CANCELLED"));
                assertThat(second.getBean(DurableTimer.class).find("order-payment", onTime))
                        .hasValueSatisfying(d -> assertThat(d.deadline()).isEqualTo(onTimeBy));
                Instant firstCancelled = null;
                while (firstCancelled == null) {
                    String status = api.status(onTime);
                    Instant now = Instant.now();
                    if (status.equals("CANCELLED")) {
                        firstCancelled = now;
                    } else {
                        assertThat(status).isEqualTo("PENDING_PAYMENT");
                        assertThat(now)
                                .as("still pending long after its deadline")
                                .isBefore(onTimeBy.plus(Api.PATIENCE));
                        Thread.sleep(20);
                    }
                }
                assertThat(firstCancelled)
                        .as("never cancelled before its deadline")
                        .isAfterOrEqualTo(onTimeBy);
                assertThat(cancelledAt(url, onTime)).isAfterOrEqualTo(onTimeBy);
                assertThat(cancelledBy(second)).isEqualTo(2);
            }
        }
    }

    @Nested
    class TwoInstancesOnOneDatabase {

        @Test
        void theDeadlinesOfAnInstanceThatDiesFireOnceOnTheOtherWhenItsLeaseRunsOut() throws Exception {
            String url = database("two");
            String[] settings = {"orders.payment-window=10s"};
            ConfigurableApplicationContext a = app(url, settings);
            try (ConfigurableApplicationContext b = app(url, settings)) {
                Api apiA = Api.of(a);
                Api apiB = Api.of(b);
                List<String> placedOnA = new ArrayList<>();
                List<String> placedOnB = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    placedOnA.add(apiA.place("a" + i));
                    placedOnB.add(apiB.place("b" + i));
                }
                Set<String> paid = new HashSet<>();
                for (int i = 0; i < 20; i += 2) { // each pays half of the other's orders
                    assertThat(apiB.pay(placedOnA.get(i)).statusCode()).isEqualTo(200);
                    assertThat(apiA.pay(placedOnB.get(i)).statusCode()).isEqualTo(200);
                    paid.add(placedOnA.get(i));
                    paid.add(placedOnB.get(i));
                }
                Instant firstPayBy = payBy(apiB, placedOnA.get(0));

                // A dies as in a crash: it loses the database, so it neither renews its lease nor hands its
                // deadlines over; it holds every deadline placed on it, none of which has passed yet.
                double cancelledByA = cancelledBy(a);
                a.getBean(HikariDataSource.class).close();
                a.close();
                assertThat(Instant.now()).as("A died before its first deadline").isBefore(firstPayBy);
                assertThat(cancelledByA).isZero();

                List<String> all =
                        Stream.concat(placedOnA.stream(), placedOnB.stream()).toList();
                await().atMost(Api.PATIENCE.multipliedBy(2))
                        .until(() ->
                                all.stream().noneMatch(id -> apiB.status(id).equals("PENDING_PAYMENT")));
                for (String id : all) {
                    assertThat(apiB.status(id)).as(id).isEqualTo(paid.contains(id) ? "PAID" : "CANCELLED");
                }
                // Every unpaid order cancelled once, by B, A's among them once A's lease ran out (3 s).
                assertThat(cancelledBy(b)).isEqualTo(all.size() - paid.size());
                for (String id : placedOnA) {
                    if (!paid.contains(id)) {
                        assertThat(cancelledAt(url, id)).as(id).isAfterOrEqualTo(payBy(apiB, id));
                    }
                }
                assertThat(b.getBean(DurableTimer.class).find("order-payment", placedOnA.get(1)))
                        .isEmpty();
            } finally {
                a.close();
            }
        }
    }

    private static Instant payBy(Api api, String id) {
        return Instant.parse(JsonPath.read(api.get("/orders/" + id).body(), "$.payBy"));
    }

    private static Instant cancelledAt(String url, String id) throws Exception {
        try (Connection c = DriverManager.getConnection(url, postgres().username(), "");
                PreparedStatement query = c.prepareStatement("SELECT cancelled_at FROM orders WHERE id = ?")) {
            query.setString(1, id);
            try (var rs = query.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getTimestamp(1).toInstant();
            }
        }
    }

    @Nested
    class PaymentsRacingTheDeadline {

        @Test
        void theAnswersAgreeWithTheStoredStateFor50RacingPayments() throws Exception {
            String url = database("race");
            try (ConfigurableApplicationContext app =
                    app(url, "orders.payment-window=1s", "orders.provider-latency=0ms")) {
                Api api = Api.of(app);
                for (long offsetMillis : new long[] {-200, -40, -20, 0, 20}) {
                    Api.Placed placed = api.placeDue("race");
                    String id = placed.id();
                    Instant payBy = placed.payBy();
                    long wait = Duration.between(Instant.now(), payBy.plusMillis(offsetMillis))
                            .toMillis();
                    if (wait > 0) {
                        Thread.sleep(wait);
                    }
                    List<Integer> statuses = api.payAtOnce(id, 50);
                    assertThat(statuses).as("offset %d ms", offsetMillis).allMatch(s -> s == 200 || s == 409);
                    long ok = statuses.stream().filter(s -> s == 200).count();
                    assertThat(ok).as("offset %d ms", offsetMillis).isLessThanOrEqualTo(1);
                    await().atMost(Api.PATIENCE).until(() -> !api.status(id).equals("PENDING_PAYMENT"));
                    assertThat(api.status(id))
                            .as("offset %d ms: %s", offsetMillis, Map.of("200s", ok))
                            .isEqualTo(ok == 1 ? "PAID" : "CANCELLED");
                }
            }
        }
    }
}
