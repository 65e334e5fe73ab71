package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.jdbc.DurableTimer;
import io.wheeltimer.jdbc.DurableTimerTask;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

/**
 * Through Boot, on H2 and PostgreSQL: what a handler writes through the application's
 * {@code JdbcTemplate} or {@code JdbcClient} commits together with the removal of its timeout, and a
 * handler that throws rolls both back; {@code schedule} and {@code cancel} inside a
 * {@code @Transactional} method take part in its transaction.
 */
class HandlerTransactionTest {

    /** The order service of the quick start: schedules in its transaction, handles the deadline. */
    @Transactional
    public static class Orders {
        final JdbcClient jdbc;
        final JdbcTemplate audit;
        final DurableTimer deadlines;
        final AtomicInteger brokenRuns = new AtomicInteger();

        public Orders(JdbcClient jdbc, JdbcTemplate audit, DurableTimer deadlines) {
            this.jdbc = jdbc;
            this.audit = audit;
            this.deadlines = deadlines;
        }

        public void place(String orderId, Duration paymentWindow) {
            jdbc.sql("INSERT INTO orders (id, status) VALUES (?, 'NEW')")
                    .param(orderId)
                    .update();
            deadlines.schedule("order-payment", orderId, paymentWindow);
        }

        public void placeThenFail(String orderId) {
            place(orderId, Duration.ZERO);
            throw new IllegalStateException("card declined");
        }

        public void payThenFail(String orderId) {
            deadlines.cancel("order-payment", orderId);
            throw new IllegalStateException("ledger down");
        }

        @DurableTimerTask("order-payment")
        public void cancelIfUnpaid(String orderId) {
            jdbc.sql("UPDATE orders SET status = 'CANCELLED' WHERE id = ? AND status = 'NEW'")
                    .param(orderId)
                    .update();
        }

        /** Writes through JdbcTemplate, then throws: the write must not survive. */
        @DurableTimerTask("broken")
        public void broken(String orderId) {
            brokenRuns.incrementAndGet();
            audit.update("INSERT INTO audit (entry) VALUES (?)", "broken " + orderId);
            throw new IllegalStateException("handler bug");
        }

        /** Through the proxy: its own fields are not the target's. */
        public int brokenRuns() {
            return brokenRuns.get();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class App {
        @Bean
        Orders orders(JdbcClient jdbc, JdbcTemplate jdbcTemplate, DurableTimer deadlines) {
            jdbcTemplate.execute("CREATE TABLE orders (id VARCHAR(50) PRIMARY KEY, status VARCHAR(20))");
            jdbcTemplate.execute("CREATE TABLE audit (entry VARCHAR(100))");
            return new Orders(jdbc, jdbcTemplate, deadlines);
        }
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void theHandlersWritesCommitWithTheRemovalOfItsTimeout(Database database) {
        DurableApps.runner(database).withUserConfiguration(App.class).run(context -> {
            assertThat(context).hasNotFailed();
            JdbcDurableTimer timer = DurableApps.holdingTimer(context);
            Orders orders = context.getBean(Orders.class);
            orders.place("o-1", Duration.ofMillis(100));
            assertThat(timer.find("order-payment", "o-1")).isPresent();

            await().atMost(Duration.ofSeconds(30))
                    .until(() -> status(context, "o-1").equals("CANCELLED"));
            assertThat(timer.find("order-payment", "o-1")).isEmpty();
            assertThat(rows(context)).isEmpty();
        });
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void aHandlerThatThrowsRollsBackItsWritesAndTheRemoval(Database database) {
        DurableApps.runner(database)
                .withUserConfiguration(App.class)
                .withPropertyValues("wheel-timer.durable.max-attempts=2")
                .run(context -> {
                    JdbcDurableTimer timer = DurableApps.holdingTimer(context);
                    timer.schedule("broken", "o-2", Duration.ZERO);
                    Orders orders = context.getBean(Orders.class);

                    await().atMost(Duration.ofSeconds(30)).until(() -> failedAt(context, "o-2") != null);
                    assertThat(orders.brokenRuns()).isEqualTo(2);
                    JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
                    assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM audit", Integer.class))
                            .as("no run's write survived")
                            .isZero();
                    Map<String, Object> row =
                            jdbc.queryForMap("SELECT * FROM wheel_timer_timeouts WHERE timeout_key = 'o-2'");
                    assertThat(((Number) row.get("attempts")).intValue()).isEqualTo(2);
                    assertThat((String) row.get("last_error")).contains("handler bug");
                    assertThat(timer.find("broken", "o-2")).as("given up").isEmpty();
                });
    }

    @ParameterizedTest
    @EnumSource(Database.class)
    void scheduleAndCancelTakePartInTheCallersTransaction(Database database) {
        DurableApps.runner(database).withUserConfiguration(App.class).run(context -> {
            JdbcDurableTimer timer = DurableApps.holdingTimer(context);
            Orders orders = context.getBean(Orders.class);

            assertThatThrownBy(() -> orders.placeThenFail("o-3")).hasMessage("card declined");
            assertThat(timer.find("order-payment", "o-3")).as("rolled back").isEmpty();
            assertThat(timer.held()).as("nothing armed after a rollback").isZero();

            orders.place("o-4", Duration.ofHours(1));
            assertThatThrownBy(() -> orders.payThenFail("o-4")).hasMessage("ledger down");
            assertThat(timer.find("order-payment", "o-4"))
                    .as("the cancel rolled back")
                    .isPresent();
            assertThat(timer.held()).isEqualTo(1);
        });
    }

    private static String status(AssertableApplicationContext context, String orderId) {
        return context.getBean(JdbcTemplate.class)
                .queryForObject("SELECT status FROM orders WHERE id = ?", String.class, orderId);
    }

    private static Object failedAt(AssertableApplicationContext context, String key) {
        List<Object> failed = context.getBean(JdbcTemplate.class)
                .queryForList("SELECT failed_at FROM wheel_timer_timeouts WHERE timeout_key = ?", Object.class, key);
        return failed.isEmpty() ? null : failed.get(0);
    }

    private static List<Map<String, Object>> rows(AssertableApplicationContext context) {
        return context.getBean(JdbcTemplate.class).queryForList("SELECT * FROM wheel_timer_timeouts");
    }
}
