package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Seeing and mending the whole table: pages of pending and given-up timeouts (not only those this
 * instance holds), one given-up timeout, retry, discard, and the tasks no handler here knows.
 */
class DurableTimerMendingTest extends OnEachDatabase {

    private static final String TASK = "order-payment";
    private static final String OTHER = "invoice-reminder";

    DurableTimerMendingTest(TestDatabase database) {
        super(database);
    }

    private static Instant inMinutes(int minutes) {
        return Instant.now().plus(Duration.ofMinutes(minutes)).truncatedTo(ChronoUnit.MILLIS);
    }

    @Test
    void pendingCoversTheWholeTableSoonestFirst() {
        JdbcDurableTimer durable =
                fixture.start(fixture.builder().handler(TASK, t -> {}).handler(OTHER, t -> {}));
        durable.schedule(TASK, "c", inMinutes(30), "third");
        durable.schedule(TASK, "a", inMinutes(10));
        durable.schedule(OTHER, "b", inMinutes(20));
        durable.schedule(TASK, "held", Duration.ofSeconds(5)); // within the lookahead: held here
        durable.schedule(OTHER, "d", inMinutes(40));

        assertThat(durable.pending(TASK, 10)).extracting(DurableTimeout::key).containsExactly("held", "a", "c");
        assertThat(durable.pending(TASK, 10).get(2))
                .isEqualTo(durable.find(TASK, "c").orElseThrow());
        assertThat(durable.pending(TASK, 10).get(2).data()).isEqualTo("third");
        assertThat(durable.pending(TASK, 2)).extracting(DurableTimeout::key).containsExactly("held", "a");
        assertThat(durable.pending(null, 4))
                .extracting(t -> t.task() + "/" + t.key())
                .containsExactly(TASK + "/held", TASK + "/a", OTHER + "/b", TASK + "/c");
        assertThat(durable.pending("no-such-task", 10)).isEmpty();
        assertThat(durable.failed(null, 10)).isEmpty();
    }

    @Test
    void limitIsOneToAThousand() {
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, t -> {}));

        assertThatIllegalArgumentException()
                .isThrownBy(() -> durable.pending(TASK, 0))
                .withMessageContaining("limit");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> durable.failed(null, 1001))
                .withMessageContaining("limit")
                .withMessageContaining("1000");
        assertThat(durable.pending(TASK, 1000)).isEmpty();
    }

    @Test
    void aGivenUpTimeoutIsSeenRetriedFromAttemptOneAndFires() {
        Set<String> healed = ConcurrentHashMap.newKeySet();
        RecordingHandler handler = new RecordingHandler(timeout -> {
            if (!healed.contains(timeout.key())) {
                throw new IllegalStateException("payment service down for " + timeout.key());
            }
        });
        JdbcDurableTimer durable =
                fixture.start(fixture.builder().maxAttempts(2).handler(TASK, handler));
        Instant deadline = Instant.now().plusMillis(100).truncatedTo(ChronoUnit.MILLIS);
        durable.schedule(TASK, "order-1", deadline, "order data");
        durable.schedule(TASK, "order-2", deadline);

        await().atMost(Duration.ofSeconds(15))
                .until(() -> durable.failed(TASK, 10).size() == 2);
        FailedTimeout failed = durable.findFailed(TASK, "order-1").orElseThrow();
        assertThat(failed.timeout()).isEqualTo(new DurableTimeout(TASK, "order-1", deadline, "order data", 2));
        assertThat(failed.lastError()).contains("payment service down for order-1");
        assertThat(failed.failedAt()).isAfterOrEqualTo(deadline);
        assertThat(durable.failed(null, 1)).hasSize(1);
        assertThat(durable.find(TASK, "order-1")).isEmpty();
        assertThat(durable.pending(TASK, 10)).isEmpty();
        assertThat(durable.cancel(TASK, "order-1")).isFalse();

        healed.add("order-1");
        assertThat(durable.retry(TASK, "order-1")).isTrue();

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("order-1") == 3);
        assertThat(handler.runs("order-1").get(2).timeout())
                .isEqualTo(new DurableTimeout(TASK, "order-1", deadline, "order data", 1));
        await().atMost(Duration.ofSeconds(10)).until(() -> fixture.rows() == 1);
        assertThat(durable.findFailed(TASK, "order-1")).isEmpty();
        assertThat(durable.retry(TASK, "order-1")).isFalse();

        assertThat(durable.discard(TASK, "order-2")).isTrue();
        assertThat(durable.discard(TASK, "order-2")).isFalse();
        assertThat(fixture.rows()).isZero();
    }

    @Test
    void retryAndDiscardLeaveAPendingTimeoutAlone() {
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, t -> {}));
        DurableTimeout pending = durable.schedule(TASK, "order-1", inMinutes(10));

        assertThat(durable.retry(TASK, "order-1")).isFalse();
        assertThat(durable.discard(TASK, "order-1")).isFalse();
        assertThat(durable.findFailed(TASK, "order-1")).isEmpty();
        assertThat(durable.find(TASK, "order-1")).contains(pending);
    }

    @Test
    void aRetriedTimeoutOfATaskWithoutAHandlerHereIsLeftForAnInstanceThatHasOne() {
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, t -> {}));
        fixture.jdbc.update(
                "INSERT INTO " + fixture.table + " (task, timeout_key, deadline, due_at, holder, version, attempts,"
                        + " last_error, failed_at) VALUES ('gone', 'k', 1000, NULL, NULL, 1, 3, 'boom', 2000)");

        assertThat(durable.retry("gone", "k")).isTrue();

        assertThat(durable.held()).isZero();
        assertThat(fixture.holders()).containsEntry("k", null);
        assertThat(durable.pending("gone", 1))
                .containsExactly(new DurableTimeout("gone", "k", Instant.ofEpochMilli(1000), null, 1));
    }

    @Test
    void unhandledTasksAreThoseWithPendingRowsButNoHandlerHere() {
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, t -> {}));
        JdbcDurableTimer elsewhere = fixture.builder()
                .instanceId("elsewhere")
                .handler("removed-task", t -> {})
                .build(); // not started: what it schedules is left unheld
        elsewhere.schedule("removed-task", "a", inMinutes(10));
        elsewhere.schedule("removed-task", "b", inMinutes(10));
        durable.schedule(TASK, "mine", inMinutes(10));
        fixture.jdbc.update( // a task with nothing pending, only a given-up timeout: not listed
                "INSERT INTO " + fixture.table + " (task, timeout_key, deadline, due_at, holder, version, attempts,"
                        + " last_error, failed_at) VALUES ('given-up-only', 'g', 1000, NULL, NULL, 1, 3, 'boom', 2000)");

        assertThat(durable.unhandledTasks()).isEqualTo(Map.of("removed-task", 2L));
        assertThat(durable.tasks()).containsExactly(TASK);
    }
}
