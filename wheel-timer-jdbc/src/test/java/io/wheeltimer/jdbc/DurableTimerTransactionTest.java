package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Inside a Spring-managed transaction, schedule and cancel take part in it and the wheel is armed only
 * after the commit; outside one, they are committed before they return.
 */
class DurableTimerTransactionTest extends OnEachDatabase {

    private static final String TASK = "order-payment";

    private RecordingHandler handler;
    private JdbcDurableTimer durable;

    DurableTimerTransactionTest(TestDatabase database) {
        super(database);
    }

    private final Queue<String> heard = new ConcurrentLinkedQueue<>();

    @BeforeEach
    void start() {
        fixture = new DurableFixture(database);
        handler = fixture.writingHandler("one");
        durable = fixture.start(fixture.builder().handler(TASK, handler).listener(new DurableTimerListener() {
            @Override
            public void scheduled(String task) {
                heard.add("scheduled");
            }

            @Override
            public void cancelled(String task) {
                heard.add("cancelled");
            }

            @Override
            public void started(DurableTimeout timeout, Duration lateness) {
                heard.add("started " + timeout.key());
            }

            @Override
            public void fired(String task) {
                heard.add("fired");
            }
        }));
    }

    @Test
    void aScheduleRolledBackWithItsTransactionLeavesNothing() {
        fixture.transactions.executeWithoutResult(status -> {
            durable.schedule(TASK, "rolled-back", Duration.ZERO);
            fixture.write(new DurableTimeout(TASK, "business-write", java.time.Instant.now()), "caller");
            status.setRollbackOnly();
        });
        durable.schedule(TASK, "marker", Duration.ofMillis(300));

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("marker") == 1);
        fixture.awaitCommittedWrite("marker");
        assertThat(handler.count("rolled-back")).isZero();
        assertThat(durable.find(TASK, "rolled-back")).isEmpty();
        assertThat(fixture.rows()).isZero();
        assertThat(fixture.writes("business-write")).isZero();
    }

    @Test
    void aCancelRolledBackWithItsTransactionCancelsNothing() {
        durable.schedule(TASK, "kept", Duration.ofMillis(400));

        Boolean cancelled = fixture.transactions.execute(status -> {
            boolean result = durable.cancel(TASK, "kept");
            status.setRollbackOnly();
            return result;
        });

        assertThat(cancelled).isTrue(); // inside the transaction it was removed; the rollback undid it
        assertThat(durable.find(TASK, "kept")).isPresent();
        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("kept") == 1);
        fixture.awaitCommittedWrite("kept");
    }

    @Test
    void aTimeoutDueAtOnceInsideAnOpenTransactionIsNotArmedBeforeTheCommit() throws Exception {
        CountDownLatch scheduled = new CountDownLatch(1);
        CountDownLatch commit = new CountDownLatch(1);
        Thread caller = new Thread(() -> fixture.transactions.executeWithoutResult(status -> {
            durable.schedule(TASK, "due-at-once", Duration.ZERO);
            scheduled.countDown();
            try {
                commit.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        caller.start();
        assertThat(scheduled.await(10, TimeUnit.SECONDS)).isTrue();

        // The transaction stays open for a while: nothing is armed, nothing runs, nobody else sees it.
        await().during(Duration.ofMillis(600))
                .atMost(Duration.ofSeconds(5))
                .until(() -> handler.count() == 0
                        && durable.held() == 0
                        && durable.find(TASK, "due-at-once").isEmpty());
        long committedAt = System.nanoTime();
        commit.countDown();
        caller.join(10_000);

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("due-at-once") == 1);
        long startedAfterCommit = System.nanoTime() - committedAt;
        assertThat(Duration.ofNanos(startedAfterCommit)).isLessThan(Duration.ofSeconds(5));
        fixture.awaitCommittedWrite("due-at-once");
    }

    @Test
    void aCancelInsideATransactionTakesEffectAtTheCommit() {
        durable.schedule(TASK, "cancelled", Duration.ofMillis(300));
        durable.schedule(TASK, "marker", Duration.ofMillis(600));

        fixture.transactions.executeWithoutResult(
                status -> assertThat(durable.cancel(TASK, "cancelled")).isTrue());

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("marker") == 1);
        assertThat(handler.count("cancelled")).isZero();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(durable.held()).isZero());
    }

    @Test
    void scheduleAndCancelInOneTransactionLeaveNothing() {
        fixture.transactions.executeWithoutResult(status -> {
            durable.schedule(TASK, "both", Duration.ofMillis(100));
            assertThat(durable.cancel(TASK, "both")).isTrue();
        });
        durable.schedule(TASK, "marker", Duration.ofMillis(400));

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("marker") == 1);
        assertThat(handler.count("both")).isZero();
        // The marker's row goes once its handler's transaction commits, just after the handler ran.
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(durable.held()).isZero());
    }

    @Test
    void outsideATransactionTheChangeIsCommittedBeforeTheCallReturns() throws SQLException {
        durable.schedule(TASK, "committed", Duration.ofHours(1));
        assertThat(rowsSeenByAnotherConnection("committed")).isEqualTo(1);

        assertThat(durable.cancel(TASK, "committed")).isTrue();
        assertThat(rowsSeenByAnotherConnection("committed")).isZero();
    }

    /** Counts the rows of {@code key} on a connection of its own, in a transaction of its own. */
    private int rowsSeenByAnotherConnection(String key) throws SQLException {
        try (Connection connection = fixture.dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(
                        "SELECT COUNT(*) FROM " + fixture.table + " WHERE timeout_key = ?")) {
            statement.setString(1, key);
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    @Test
    void theListenerHearsWhatCommittedOnly() {
        fixture.transactions.executeWithoutResult(status -> {
            durable.schedule(TASK, "rolled-back", Duration.ZERO);
            status.setRollbackOnly();
        });
        durable.schedule(TASK, "kept", Duration.ofHours(1));
        fixture.transactions.executeWithoutResult(status -> {
            durable.cancel(TASK, "kept");
            status.setRollbackOnly();
        });
        durable.cancel(TASK, "kept");
        durable.schedule(TASK, "fires", Duration.ZERO);

        await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains("fired"));
        assertThat(heard).containsExactly("scheduled", "cancelled", "scheduled", "started fires", "fired");
    }
}
