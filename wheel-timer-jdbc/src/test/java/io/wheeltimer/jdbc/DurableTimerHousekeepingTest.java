package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.testsupport.LogCapture;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Housekeeping never makes a poll fail: the count of the rows of tasks no handler here knows runs off
 * the poll thread and after the claim, and one that fails (a table of millions of such rows, slower
 * than the query timeout) is logged once and tried again later, not at every poll; the rows an earlier
 * life of an instance id held of a task it no longer handles are let go at its first poll.
 */
class DurableTimerHousekeepingTest extends OnEachDatabase {

    private static final String HANDLED = "order-payment";
    private static final String GONE = "removed-task";

    DurableTimerHousekeepingTest(TestDatabase database) {
        super(database);
    }

    @Test
    void aCountOfUnhandledRowsThatTimesOutNeverFailsAPollAndIsLoggedOnceNotAtEveryPoll() throws Exception {
        AtomicInteger counts = new AtomicInteger();
        // The count of pending rows per task times out, as it does on a table of millions of them.
        DataSource timingOut = failing(fixture.dataSource, sql -> {
            if (sql.contains("COUNT(*)") && sql.contains("due_at IS NOT NULL")) {
                counts.incrementAndGet();
                return true;
            }
            return false;
        });
        try (DurableFixture slow = new DurableFixture(database, timingOut);
                LogCapture log = LogCapture.of(JdbcDurableTimer.class)) {
            slow.jdbc.update(
                    "INSERT INTO " + slow.table + " (task, timeout_key, deadline, due_at, version, attempts)"
                            + " VALUES (?, ?, ?, ?, 1, 0)",
                    GONE,
                    "k-1",
                    System.currentTimeMillis(),
                    System.currentTimeMillis());
            RecordingHandler handler = new RecordingHandler(t -> {});
            JdbcDurableTimer timer =
                    slow.start(slow.builder().lease(Duration.ofSeconds(4)).handler(HANDLED, handler));
            for (int i = 0; i < 10; i++) {
                timer.schedule(HANDLED, "order-" + i, Duration.ofMillis(300 + 100L * i));
            }

            await().atMost(Duration.ofSeconds(10)).until(() -> counts.get() >= 1 && handler.count() == 10);
            Instant afterTheCount = Instant.now();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> timer.lastSuccessfulPoll().orElseThrow().isAfter(afterTheCount.plusSeconds(1)));

            assertThat(timer.failedPollsInARow()).isZero();
            assertThat(timer.isPollingOnTime()).isTrue();
            assertThat(counts).as("counted once, not again at every poll").hasValue(1);
            assertThat(log.count(Level.WARNING, "could not count the rows of tasks it has no handler for"))
                    .isEqualTo(1);
            assertThat(log.count(Level.WARNING, "could not poll")).isZero();
        }
    }

    @Test
    void theHourlyCountOfRowsOfTasksNoHandlerHereKnowsIsKeptForTheMeterWithoutAQuery() {
        for (int i = 0; i < 3; i++) {
            fixture.jdbc.update(
                    "INSERT INTO " + fixture.table + " (task, timeout_key, deadline, due_at, version, attempts)"
                            + " VALUES (?, ?, 0, ?, 1, 0)",
                    GONE,
                    "k-" + i,
                    System.currentTimeMillis() + 3_600_000);
        }
        JdbcDurableTimer timer = fixture.builder().handler(HANDLED, t -> {}).build();
        assertThat(timer.unhandledCountedHourly()).isEmpty();

        timer.start();
        try {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> timer.unhandledCountedHourly().isPresent());
            assertThat(timer.unhandledCountedHourly()).hasValue(3);
        } finally {
            timer.stop();
        }
    }

    @Test
    void rowsAnEarlierLifeOfThisIdHeldOfATaskItNoLongerHandlesAreLetGoAtItsFirstPoll() {
        RecordingHandler onOther = new RecordingHandler(t -> {});
        JdbcDurableTimer other =
                fixture.start(fixture.builder().instanceId("pod-2").handler(GONE, onOther));
        // pod-1 handled the task in its earlier life and holds a row of it, due now.
        long now = fixture.databaseMillis();
        fixture.jdbc.update(
                "INSERT INTO " + fixture.table + " (task, timeout_key, deadline, due_at, holder, version, attempts)"
                        + " VALUES (?, ?, ?, ?, 'pod-1', 1, 0)",
                GONE,
                "held-by-pod-1",
                now,
                now);

        // Restarted under the same id, without that task's handler, and alive: it holds a lease.
        fixture.start(fixture.builder().instanceId("pod-1").handler(HANDLED, t -> {}));

        await().atMost(Duration.ofSeconds(10)).until(() -> onOther.count() == 1);
        assertThat(onOther.runs().get(0).timeout().key()).isEqualTo("held-by-pod-1");
        assertThat(other.isRunning()).isTrue();
    }

    @Test
    void withTwoMillionRowsOfATaskNoInstanceHandlesPollsSucceedAndHandledTimeoutsFireOnTime() {
        Assumptions.assumeTrue(database == TestDatabase.POSTGRESQL, "a table of millions of rows: on PostgreSQL");
        fixture.jdbc.update(
                "INSERT INTO " + fixture.table
                        + " (task, timeout_key, deadline, due_at, version, attempts)"
                        + " SELECT ?, 'k-' || g, 0, (extract(epoch from now()) * 1000)::bigint + g, 1, 0"
                        + " FROM generate_series(1, 2000000) g",
                GONE);
        fixture.jdbc.execute("ANALYZE " + fixture.table);
        Map<String, Long> lateMillis = new ConcurrentHashMap<>();
        String now = fixture.timeoutTable().databaseMillisExpression();
        try (LogCapture log = LogCapture.of(JdbcDurableTimer.class)) {
            JdbcDurableTimer timer = fixture.start(fixture.builder()
                    .pollInterval(Duration.ofMillis(500))
                    .lookahead(Duration.ofSeconds(1))
                    .lease(Duration.ofSeconds(4))
                    .handler(
                            HANDLED,
                            timeout -> lateMillis.put(
                                    timeout.key(),
                                    fixture.jdbc.queryForObject("SELECT " + now, Long.class)
                                            - timeout.deadline().toEpochMilli())));
            for (int i = 0; i < 40; i++) {
                timer.schedule(HANDLED, "order-" + i, Duration.ofMillis(500 + 200L * i));
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < end) {
                assertThat(timer.isPollingOnTime())
                        .as("polling on time (health UP)")
                        .isTrue();
                assertThat(timer.failedPollsInARow()).isZero();
                sleep(Duration.ofMillis(200));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> lateMillis.size() == 40);
            assertThat(lateMillis.values()).allSatisfy(late -> assertThat(late).isBetween(0L, 1_000L));
            assertThat(log.count(Level.WARNING, "could not poll")).isZero();
            System.out.println("HOUSEKEEPING (" + database + "): 2,000,000 rows of a task nobody handles, lease 4 s:"
                    + " 40 handled timeouts, worst lateness "
                    + lateMillis.values().stream()
                            .mapToLong(Long::longValue)
                            .max()
                            .orElse(0) + " ms");
        }
    }

    private static void sleep(Duration duration) {
        try {
            TimeUnit.NANOSECONDS.sleep(duration.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Which statements time out. */
    private interface Failing {
        boolean timesOut(String sql);
    }

    /** {@code target}, but the prepared statements whose SQL {@code failing} names throw a query timeout when run. */
    private static DataSource failing(DataSource target, Failing failing) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    return result instanceof Connection c ? connection(c, failing) : result;
                });
    }

    private static Connection connection(Connection target, Failing failing) {
        return (Connection) Proxy.newProxyInstance(
                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    Object result = invoke(target, method, args);
                    if (result instanceof PreparedStatement statement
                            && method.getName().equals("prepareStatement")
                            && failing.timesOut((String) args[0])) {
                        return timingOut(statement);
                    }
                    return result;
                });
    }

    private static PreparedStatement timingOut(PreparedStatement target) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().startsWith("execute")) {
                throw new SQLTimeoutException("canceling statement due to statement timeout (injected)");
            }
            return invoke(target, method, args);
        };
        return (PreparedStatement) Proxy.newProxyInstance(
                PreparedStatement.class.getClassLoader(), new Class<?>[] {PreparedStatement.class}, handler);
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
