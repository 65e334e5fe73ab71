package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The counts add up: {@code held} is what this instance holds, also after an outage long enough
 * for another instance to take its timeouts over; and the lateness heard for a deadline long past
 * is its real lateness, at most one day (however far past), never negative.
 */
class DurableTimerCountsTest extends OnEachDatabase {

    private static final String TASK = "order-payment";

    DurableTimerCountsTest(TestDatabase database) {
        super(database);
    }

    @Test
    void afterAnOutageThatLetAnotherInstanceTakeItsTimeoutsHeldCountsNoneOfThem() {
        AtomicBoolean down = new AtomicBoolean();
        DataSource flaky = switchable(fixture.dataSource, down);
        RecordingHandler onA = fixture.writingHandler("a");
        JdbcDurableTimer a =
                fixture.start(JdbcDurableTimer.builder(flaky, new DataSourceTransactionManager(flaky), fixture.wheel)
                        .tableName(fixture.table)
                        .instanceId("a")
                        .pollInterval(DurableFixture.POLL)
                        .lease(Duration.ofSeconds(1))
                        .handler(TASK, onA));
        for (int i = 0; i < 3; i++) {
            a.schedule(TASK, "taken-" + i, Duration.ofSeconds(8));
        }
        assertThat(a.held()).isEqualTo(3);

        down.set(true); // a's polls fail: its lease runs out, and b takes what it held
        RecordingHandler onB = fixture.writingHandler("b");
        await().pollDelay(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5)).until(() -> true);
        JdbcDurableTimer b = fixture.start(fixture.builder().instanceId("b").handler(TASK, onB));
        await().atMost(Duration.ofSeconds(5)).until(() -> b.held() == 3);
        assertThat(fixture.holders().values()).containsOnly("b");
        assertThat(a.held()).as("what a's memory still says during the outage").isEqualTo(3);

        down.set(false);

        // Well before the deadlines: a's first poll after the outage finds its lease lapsed and rebuilds.
        await().atMost(Duration.ofSeconds(3)).until(() -> a.held() == 0);
        await().atMost(Duration.ofSeconds(15)).until(() -> onB.count() == 3);
        for (int i = 0; i < 3; i++) {
            fixture.awaitCommittedWrite("taken-" + i);
        }
        assertThat(onA.count()).isZero();
    }

    @Test
    void theLatenessOfADeadlineLongPastIsItsRealLatenessUpToADay() {
        List<Map.Entry<String, Duration>> heard = new CopyOnWriteArrayList<>();
        DurableTimerListener lateness = new DurableTimerListener() {
            @Override
            public void started(DurableTimeout timeout, Duration late) {
                heard.add(Map.entry(timeout.key(), late));
            }
        };
        JdbcDurableTimer durable =
                fixture.start(fixture.builder().listener(lateness).handler(TASK, t -> {}));

        durable.schedule(TASK, "two hours ago", Instant.now().minus(Duration.ofHours(2)));
        durable.schedule(TASK, "1970", Instant.EPOCH);
        durable.schedule(TASK, "year -1000", Instant.parse("-1000-01-01T00:00:00Z"));
        durable.schedule(TASK, "earliest", Instant.ofEpochMilli(Long.MIN_VALUE));
        durable.schedule(TASK, "future", Duration.ofMillis(100));

        await().atMost(Duration.ofSeconds(10)).until(() -> heard.size() == 5);
        Map<String, Duration> byKey = Map.ofEntries(heard.toArray(Map.Entry[]::new));
        assertThat(byKey.get("two hours ago"))
                .isBetween(Duration.ofHours(2), Duration.ofHours(2).plusSeconds(30));
        assertThat(byKey.get("1970")).isEqualTo(Duration.ofDays(1));
        assertThat(byKey.get("year -1000")).isEqualTo(Duration.ofDays(1));
        assertThat(byKey.get("earliest")).isEqualTo(Duration.ofDays(1));
        assertThat(byKey.get("future")).isBetween(Duration.ZERO, Duration.ofSeconds(5));
    }

    /** {@code target}, whose connections cannot be had while {@code down} is set. */
    private static DataSource switchable(DataSource target, AtomicBoolean down) {
        return (DataSource) Proxy.newProxyInstance(
                DurableTimerCountsTest.class.getClassLoader(),
                new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getConnection") && down.get()) {
                        throw new SQLException("the database is down (switched off by the test)", "08001");
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
