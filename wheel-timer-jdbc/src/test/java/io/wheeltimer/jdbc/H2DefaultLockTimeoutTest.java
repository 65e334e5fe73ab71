package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.wheeltimer.HashedWheelTimer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * On H2 with its default lock timeout (a second; the sample's and Boot's embedded database), the
 * calls answer as on PostgreSQL: two first schedules of one key at once both succeed, and a cancel
 * that meets a running handler's locked row waits for it instead of failing.
 */
class H2DefaultLockTimeoutTest {

    private static final String TASK = "order-payment";

    private final HikariDataSource dataSource =
            TestDatabase.pool("jdbc:h2:mem:default-lock-timeout;DB_CLOSE_DELAY=-1", "sa", 10);
    private final HashedWheelTimer wheel = HashedWheelTimer.builder()
            .name("h2-lock-wheel")
            .tickDuration(Duration.ofMillis(10))
            .build();
    private final ExecutorService callers = Executors.newFixedThreadPool(2);
    private JdbcDurableTimer durable;

    @AfterEach
    void close() {
        if (durable != null) {
            durable.stop();
        }
        callers.shutdownNow();
        wheel.stop();
        dataSource.close();
    }

    private JdbcDurableTimer start(DurableTimeoutHandler handler, String table) {
        TestDatabase.H2.createTables(dataSource, table);
        durable = JdbcDurableTimer.builder(dataSource, new DataSourceTransactionManager(dataSource), wheel)
                .tableName(table)
                .pollInterval(Duration.ofMillis(100))
                .lease(Duration.ofSeconds(1))
                .handler(TASK, handler)
                .build();
        durable.start();
        return durable;
    }

    @Test
    void twoFirstSchedulesOfOneKeyAtOnceBothSucceed() throws Exception {
        JdbcDurableTimer timer = start(t -> {}, "h2_first_schedules");

        for (int round = 0; round < 50; round++) {
            String key = "order-" + round;
            CountDownLatch go = new CountDownLatch(1);
            List<Future<DurableTimeout>> both = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                both.add(callers.submit(() -> {
                    go.await();
                    return timer.schedule(TASK, key, Duration.ofHours(1));
                }));
            }
            go.countDown();
            for (Future<DurableTimeout> call : both) {
                assertThat(call.get(30, TimeUnit.SECONDS).key()).isEqualTo(key);
            }
        }
        assertThat(new org.springframework.jdbc.core.JdbcTemplate(dataSource)
                        .queryForObject("SELECT COUNT(*) FROM h2_first_schedules", Integer.class))
                .isEqualTo(50);
    }

    @Test
    void aCancelThatMeetsARunningHandlerWaitsForItAndAnswersFalse() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        JdbcDurableTimer timer = start(
                timeout -> {
                    running.countDown();
                    Thread.sleep(2500); // longer than H2's one-second lock timeout
                },
                "h2_cancel_race");
        timer.schedule(TASK, "racing", Duration.ofMillis(50));
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

        Future<Boolean> cancel = callers.submit(() -> timer.cancel(TASK, "racing"));

        assertThat(cancel.get(30, TimeUnit.SECONDS)).isFalse(); // the handler committed first
        await().atMost(Duration.ofSeconds(5))
                .until(() -> timer.find(TASK, "racing").isEmpty());
    }
}
