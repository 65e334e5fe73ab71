package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timeout;
import io.wheeltimer.testsupport.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/**
 * A handler that throws rolls back its writes and the removal of the row; the timeout is retried after
 * the retry delay, and after {@code maxAttempts} failed runs it is given up: logged at ERROR, heard
 * by the listener, kept in the table with the error, and no longer pending.
 */
class DurableTimerFailureTest extends OnEachDatabase {

    private static final String TASK = "order-payment";
    private static final Duration RETRY_DELAY = Duration.ofMillis(300);

    private final HeardListener listener = new HeardListener();
    private final Queue<String> heard = listener.heard;

    DurableTimerFailureTest(TestDatabase database) {
        super(database);
    }

    @Test
    void aTimeoutTheWheelRefusesIsReleasedForOtherInstancesAndRunsOnceTheWheelHasRoom() {
        HashedWheelTimer fullWheel = HashedWheelTimer.builder()
                .name("full-wheel")
                .tickDuration(Duration.ofMillis(10))
                .maxPendingTimeouts(1)
                .build();
        RecordingHandler handler = fixture.writingHandler("a");
        JdbcDurableTimer durable =
                fixture.start(JdbcDurableTimer.builder(fixture.dataSource, fixture.transactionManager, fullWheel)
                        .tableName(fixture.table)
                        .pollInterval(DurableFixture.POLL)
                        .lookahead(Duration.ofSeconds(1))
                        .lease(Duration.ofSeconds(1))
                        .handler(TASK, handler));
        try {
            Timeout filler = fullWheel.newTimeout(t -> {}, 1, TimeUnit.HOURS);
            durable.schedule(TASK, "refused", Duration.ofMillis(50));

            // The wheel is full: the next poll releases the row for an instance with room, and this
            // one claims it again a poll later; nothing runs and nothing is lost.
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> fixture.holders().containsKey("refused")
                            && fixture.holders().get("refused") == null);
            assertThat(handler.count()).isZero();
            assertThat(durable.find(TASK, "refused")).isPresent();

            filler.cancel();
            await().atMost(Duration.ofSeconds(10)).until(() -> handler.count("refused") == 1);
            fixture.awaitCommittedWrite("refused");
        } finally {
            durable.stop();
            fullWheel.stop();
        }
    }

    @Test
    void aHandlerThatThrowsRollsBackItsWritesAndRunsAgainAfterTheRetryDelay() {
        AtomicInteger runs = new AtomicInteger();
        RecordingHandler handler = new RecordingHandler(timeout -> {
            fixture.write(timeout, "run-" + runs.incrementAndGet());
            if (runs.get() == 1) {
                throw new IllegalStateException("payment service unavailable");
            }
        });
        JdbcDurableTimer durable = fixture.start(
                fixture.builder().handler(TASK, handler).retryDelay(RETRY_DELAY).listener(listener));

        durable.schedule(TASK, "flaky", Duration.ofMillis(50));

        await().atMost(Duration.ofSeconds(10)).until(() -> handler.count() == 2 && durable.held() == 0);
        List<RecordingHandler.Run> both = handler.runs();
        // The first retry waits the retry delay times a random factor between 0.8 and 1.2.
        assertThat(Duration.between(both.get(0).started(), both.get(1).started()))
                .isGreaterThanOrEqualTo(
                        RETRY_DELAY.multipliedBy(8).dividedBy(10).minusMillis(5));
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.rows() == 0);
        // Only the second run's write committed.
        assertThat(fixture.writesPerInstance()).isEqualTo(Map.of("run-2", 1L));
        assertThat(heard).containsExactly("retried " + TASK + ": payment service unavailable", "fired " + TASK);
    }

    @Test
    void afterMaxAttemptsRunsThatThrewTheTimeoutIsGivenUpAndKeptWithItsError() {
        RecordingHandler handler = new RecordingHandler(timeout -> {
            fixture.write(timeout, "never-committed");
            throw new IllegalStateException("card declined, run at " + System.nanoTime());
        });
        JdbcDurableTimer durable = fixture.start(fixture.builder()
                .handler(TASK, handler)
                .retryDelay(RETRY_DELAY)
                .maxAttempts(3)
                .listener(listener));

        try (LogCapture log = LogCapture.of(JdbcDurableTimer.class)) {
            durable.schedule(TASK, "doomed", Duration.ZERO);

            await().atMost(Duration.ofSeconds(15)).until(() -> heard.stream().anyMatch(h -> h.startsWith("failed")));
            List<LogRecord> errors = log.records(Level.SEVERE);
            assertThat(errors).hasSize(1);
            assertThat(errors.get(0).getMessage())
                    .contains("\"" + TASK + "\"", "\"doomed\"", "3 runs", "card declined");
            assertThat(errors.get(0).getThrown()).hasMessageStartingWith("card declined");
        }

        assertThat(handler.count()).isEqualTo(3);
        assertThat(heard).hasSize(3);
        assertThat(heard).filteredOn(h -> h.startsWith("retried")).hasSize(2);
        assertThat(heard).last().asString().startsWith("failed " + TASK + ": card declined");
        Map<String, Object> row = fixture.row(TASK, "doomed");
        assertThat(row.get("failed_at")).isNotNull();
        assertThat(row.get("holder")).isNull();
        assertThat(((Number) row.get("attempts")).intValue()).isEqualTo(3);
        assertThat((String) row.get("last_error")).startsWith("java.lang.IllegalStateException: card declined");
        assertThat(fixture.writes("doomed")).isZero();
        assertThat(durable.find(TASK, "doomed")).isEmpty();
        assertThat(durable.failed()).isEqualTo(1);
        assertThat(durable.cancel(TASK, "doomed")).isFalse();
        assertThat(durable.held()).isZero();

        // Nothing more happens to it: it is not retried again.
        await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(() -> handler.count() == 3);
    }

    @Test
    void schedulingAGivenUpKeyAgainMakesItPendingWithAFreshCount() {
        AtomicInteger runs = new AtomicInteger();
        RecordingHandler handler = new RecordingHandler(timeout -> {
            if (runs.incrementAndGet() == 1) {
                throw new IllegalStateException("first run fails");
            }
            fixture.write(timeout, "second");
        });
        JdbcDurableTimer durable = fixture.start(
                fixture.builder().handler(TASK, handler).maxAttempts(1).listener(listener));
        durable.schedule(TASK, "again", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> durable.failed() == 1);

        durable.schedule(TASK, "again", Duration.ZERO);

        await().atMost(Duration.ofSeconds(10)).until(() -> fixture.writes("again") == 1);
        assertThat(durable.failed()).isZero();
        await().atMost(Duration.ofSeconds(5)).until(() -> fixture.rows() == 0);
    }

    @Test
    void aTimeoutCancelledWhileItsFailedRunWasRollingBackIsNotRetried() {
        AtomicInteger runs = new AtomicInteger();
        JdbcDurableTimer[] durable = new JdbcDurableTimer[1];
        RecordingHandler handler = new RecordingHandler(timeout -> {
            runs.incrementAndGet();
            throw new IllegalStateException("fails");
        });
        durable[0] = fixture.start(
                fixture.builder().handler(TASK, handler).retryDelay(RETRY_DELAY).listener(listener));
        durable[0].schedule(TASK, "cancel-after-failure", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.stream().anyMatch(h -> h.startsWith("retried")));

        assertThat(durable[0].cancel(TASK, "cancel-after-failure")).isTrue();

        await().during(RETRY_DELAY.multipliedBy(2))
                .atMost(Duration.ofSeconds(5))
                .until(() -> runs.get() == 1);
        assertThat(fixture.rows()).isZero();
        assertThat(durable[0].held()).isZero();
    }
}
