package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.testsupport.LogCapture;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * The edges: a deadline at the far end of the epoch-millisecond range is due at once, not in 292
 * million years; {@code stop()} returns while a handler still runs; and the rows of a task no
 * handler here knows are kept and reported, never deleted.
 */
class DurableTimerEdgesTest extends OnEachDatabase {

    private static final String TASK = "order-payment";

    DurableTimerEdgesTest(TestDatabase database) {
        super(database);
    }

    @Test
    void theEarliestDeadlineThereIsIsDueAtOnce() {
        RecordingHandler handler = fixture.writingHandler("a");
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, handler));

        durable.schedule(TASK, "long-ago", Instant.ofEpochMilli(Long.MIN_VALUE));

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("long-ago") == 1);
        fixture.awaitCommittedWrite("long-ago");
    }

    @Test
    void stopReturnsWithinItsWaitForHandlersWhileAHandlerStillRuns() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        RecordingHandler handler = new RecordingHandler(timeout -> {
            running.countDown();
            finish.await(60, TimeUnit.SECONDS);
            fixture.write(timeout, "a");
        });
        JdbcDurableTimer durable = fixture.start(fixture.builder().handler(TASK, handler));
        durable.schedule(TASK, "slow", Duration.ofMillis(50));
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();

        long start = System.nanoTime();
        durable.stop();
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        // 10 s for the handlers, then one statement timeout (1 s with this lease) for the release
        // that meets the handler's locked row; generous on a busy machine.
        assertThat(took).isLessThan(Duration.ofSeconds(20));
        assertThat(durable.isRunning()).isFalse();
        finish.countDown();
        fixture.awaitCommittedWrite("slow");
    }

    @Test
    void theRowsOfATaskNoHandlerKnowsAreKeptAndReported() {
        long now = System.currentTimeMillis();
        for (int i = 0; i < 3; i++) {
            fixture.jdbc.update(
                    "INSERT INTO " + fixture.table + " (task, timeout_key, deadline, due_at, holder, version, attempts)"
                            + " VALUES ('order-archiving', ?, ?, ?, NULL, 1, 0)",
                    "archive-" + i,
                    now,
                    now);
        }
        try (LogCapture log = LogCapture.of(JdbcDurableTimer.class)) {
            fixture.start(fixture.builder().instanceId("a").handler(TASK, t -> {}));

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> log.count(Level.WARNING, "task \"order-archiving\"") == 1);
            assertThat(log.messages(Level.WARNING))
                    .filteredOn(m -> m.contains("order-archiving"))
                    .singleElement()
                    .satisfies(m -> assertThat(m).contains("has 3 pending timeouts"));
            await().during(Duration.ofMillis(500)).until(() -> fixture.rows() == 3);
            assertThat(log.count(Level.WARNING, "task \"order-archiving\"")).isOne();
        }
    }
}
